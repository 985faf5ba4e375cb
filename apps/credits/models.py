"""The credits ledger. Models of this app live in each site schema.

Every change of a member's credits is one append-only entry; `User.credits` caches the
sum and a database constraint keeps it from going below zero (ARCHITECTURE "Money")."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class EntryKind(models.TextChoices):
    PURCHASE = "purchase", _("Purchase")
    SIGNUP_BONUS = "signup_bonus", _("Signup bonus")
    MESSAGE = "message", _("Message")
    PHOTO = "photo", _("Photo")
    GIFT = "gift", _("Gift")
    REFUND = "refund", _("Refund")
    CHARGEBACK = "chargeback", _("Chargeback")
    ADJUSTMENT = "adjustment", _("Support adjustment")


# Kinds whose entries take credits away (negative amounts); the others add credits,
# except an adjustment, which may go either way.
SPENDING_KINDS = (EntryKind.MESSAGE, EntryKind.PHOTO, EntryKind.GIFT)
TAKE_BACK_KINDS = (EntryKind.REFUND, EntryKind.CHARGEBACK)
GRANT_KINDS = (EntryKind.PURCHASE, EntryKind.SIGNUP_BONUS)


def _kind_is(*kinds: str) -> models.Q:
    condition = models.Q(kind=kinds[0])
    for kind in kinds[1:]:
        condition |= models.Q(kind=kind)
    return condition


class CreditEntry(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="credit_entries")
    kind = models.CharField(_("kind"), max_length=20, choices=EntryKind.choices)
    credits = models.IntegerField(_("credits"), help_text=_("Added (positive) or taken (negative)."))
    balance_after = models.PositiveIntegerField(_("balance after"))
    # A refund or chargeback larger than the balance: what could not be taken back.
    owed = models.PositiveIntegerField(_("credits owed"), default=0)
    # Makes a grant or take-back happen once: "signup_bonus:<user>", "purchase:<payment>", ...
    key = models.CharField(_("idempotency key"), max_length=120, null=True, blank=True, unique=True)
    payment = models.ForeignKey(
        "payments.Payment", on_delete=models.SET_NULL, null=True, blank=True, related_name="credit_entries"
    )
    # What the credits were spent on, e.g. "message:123".
    reference = models.CharField(_("reference"), max_length=120, blank=True)
    note = models.CharField(_("note"), max_length=300, blank=True)
    staff_name = models.CharField(_("changed by (support)"), max_length=150, blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("credit entry")
        verbose_name_plural = _("credit entries")
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["user", "-created"], name="credit_entry_user_created")]
        constraints = [
            # Refunds and chargebacks may take 0 credits when the balance is empty: the
            # entry then records the debt (`owed`).
            # Written without IN (...): PostgreSQL prints an IN list over varchar differently
            # after a dump and reload, and site schemas are restored copies (apps.tenants.cloning).
            models.CheckConstraint(
                condition=(_kind_is("message", "photo", "gift") & models.Q(credits__lt=0))
                | (_kind_is("refund", "chargeback") & models.Q(credits__lte=0))
                | (_kind_is("purchase", "signup_bonus") & models.Q(credits__gt=0))
                | (_kind_is("adjustment") & ~models.Q(credits=0)),
                name="credit_entry_sign_matches_kind",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.credits:+d}"
