"""Accounts. In a site schema these are the site's members; in the public schema
the same table holds the operators who use the admin."""

from django.contrib.auth.models import AbstractUser
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django_countries.fields import CountryField

# Spec §3 "Notification types".
NOTIFICATION_TYPES = (
    ("new_conversations", _("New conversations")),
    ("new_messages", _("New messages")),
    ("like", _("Likes")),
    ("unread_message_reminders", _("Reminders of unread messages")),
    ("promotions", _("Promotions")),
    ("weekly_updates", _("Weekly updates")),
    ("news", _("News")),
    ("reminders", _("Reminders")),
    # Beyond spec §3's list: what support decided about the member's own photos (a
    # rejected photo, with the reason and how to fix it), part of the service.
    ("photo_decisions", _("Decisions about my photos")),
)
NOTIFICATION_TYPE_NAMES = tuple(name for name, _label in NOTIFICATION_TYPES)


def _all_notification_types() -> list[str]:
    return list(NOTIFICATION_TYPE_NAMES)


class UserStatus(models.TextChoices):
    NOT_CONFIRMED = "not_confirmed", _("E-mail address not confirmed")
    ACTIVE = "active", _("Active")
    DELETED = "deleted", _("Deleted (can be reactivated)")


class EmailDisabledReason(models.TextChoices):
    """Spec §4: e-mail notifications can be disabled three ways, each with its remedy."""

    SPAM_COMPLAINT = "spam_complaint", _("Marked as spam")
    BOUNCE = "bounce", _("Bounced")
    UNSUBSCRIBE = "unsubscribe", _("Unsubscribed")


# The reasons after which no notification mail goes to the address (an unsubscribe only
# stops the types it names: User.email_notifications).
MAIL_STOPPED_BY = (EmailDisabledReason.BOUNCE.value, EmailDisabledReason.SPAM_COMPLAINT.value)


class DeleteReason(models.TextChoices):
    PRICE = "price", _("It is too expensive")
    FOUND_SOMEONE = "found_someone", _("I found someone")
    NOT_LOOKING = "not_looking", _("I am not looking anymore")
    SITE_PROBLEMS = "site_problems", _("The site does not work well")
    NO_MEMBERS = "no_members", _("Not enough members near me")
    TIME = "time", _("I do not have the time")
    OTHER = "other", _("Other")


class User(AbstractUser):
    # `username` is the member's name shown to others (spec: "name").
    email = models.EmailField(_("e-mail address"), blank=True)
    date_of_birth = models.DateField(_("date of birth"), null=True, blank=True)
    language = models.CharField(_("language"), max_length=5, default="en")
    # The browser's IANA time zone ("Europe/Berlin"), kept from the member's pages
    # (apps.accounts.time_zone); "" until a page reported it: UTC then.
    time_zone = models.CharField(_("time zone"), max_length=64, blank=True)
    country = CountryField(_("country"), blank=True)
    status = models.CharField(_("status"), max_length=20, choices=UserStatus.choices, default=UserStatus.ACTIVE)
    invisible = models.BooleanField(_("invisible mode"), default=False)
    email_notifications = ArrayField(
        models.CharField(max_length=40),
        default=_all_notification_types,
        blank=True,
        verbose_name=_("e-mail notifications"),
    )
    push_notifications = ArrayField(
        models.CharField(max_length=40),
        default=_all_notification_types,
        blank=True,
        verbose_name=_("push notifications"),
    )
    email_disabled_reason = models.CharField(
        _("e-mail notifications disabled by"), max_length=20, choices=EmailDisabledReason.choices, blank=True
    )
    # When the reason above was set: a later bounce shows the dismissed alert again.
    email_disabled_at = models.DateTimeField(_("e-mail notifications disabled at"), null=True, blank=True)
    # Dismissed alerts (spec §4), each with the time it was dismissed: {"profile_photo": "2026-..."}.
    dismissals = models.JSONField(_("dismissed alerts"), default=dict, blank=True)
    deleted_at = models.DateTimeField(_("deleted at"), null=True, blank=True)
    delete_reason = models.CharField(_("reason for deleting"), max_length=20, choices=DeleteReason.choices, blank=True)
    delete_remarks = models.TextField(_("remarks on deleting"), blank=True)

    # Money (apps.credits, apps.payments). `credits` caches the sum of the member's ledger
    # (credits.CreditEntry) and is changed only together with a ledger entry.
    credits = models.IntegerField(_("credits"), default=0)
    paid_user = models.BooleanField(_("premium (has bought credits)"), default=False)
    premium_since = models.DateTimeField(_("premium since"), null=True, blank=True)
    # A chargeback larger than the balance leaves a debt: spending stops until support clears it.
    credits_frozen = models.BooleanField(_("spending frozen"), default=False)
    credits_owed = models.PositiveIntegerField(_("credits owed after chargebacks"), default=0)
    direct_debit_blocked = models.BooleanField(_("blocked for direct debit"), default=False)

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")
        constraints = [
            models.CheckConstraint(condition=models.Q(credits__gte=0), name="user_credits_not_negative"),
            models.UniqueConstraint(
                Lower("email"),
                name="unique_user_email_ci",
                condition=~models.Q(email=""),
                violation_error_message=_("This email address already owns an account on this website."),
            ),
        ]
        indexes = [
            # Lists and search counts join every profile to its member for these two
            # (apps.profiles.visibility): read from the index alone, and PostgreSQL plans a
            # count of 1,088 matches as one probe each instead of a parallel scan.
            models.Index(fields=["id"], include=["invisible", "status"], name="user_listed_idx"),
        ]

    @property
    def name(self) -> str:
        return self.username

    @property
    def is_confirmed(self) -> bool:
        return self.status != UserStatus.NOT_CONFIRMED

    @property
    def notifications_disabled(self) -> list[str]:
        return [self.email_disabled_reason] if self.email_disabled_reason else []


class SignupTracking(models.Model):
    """Where a member came from (spec §7 tracking parameters), stored at signup."""

    user = models.OneToOneField(User, on_delete=models.CASCADE, related_name="tracking")
    network = models.CharField(max_length=100, blank=True)
    ref = models.CharField(max_length=100, blank=True)
    sub = models.CharField(max_length=100, blank=True)
    sub1 = models.CharField(max_length=100, blank=True)
    sub2 = models.CharField(max_length=100, blank=True)
    sub3 = models.CharField(max_length=100, blank=True)
    aff_sub = models.CharField(max_length=100, blank=True)
    aff_sub1 = models.CharField(max_length=100, blank=True)
    aff_sub2 = models.CharField(max_length=100, blank=True)
    aff_sub3 = models.CharField(max_length=100, blank=True)
    cpc = models.CharField(max_length=100, blank=True)
    # The lander the visitor saw last before signing up (its key, e.g. "gallery" or
    # "member-landing2") and the campaign label of its {slug} (apps.landers).
    lander = models.CharField(max_length=40, blank=True)
    campaign = models.CharField(max_length=40, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.network or '-'} / {self.ref or '-'}"

    TRACKING_FIELDS = (
        "network",
        "ref",
        "sub",
        "sub1",
        "sub2",
        "sub3",
        "aff_sub",
        "aff_sub1",
        "aff_sub2",
        "aff_sub3",
        "cpc",
    )
    # Kept from the lander's address, not from query parameters (apps.accounts.tracking).
    LANDER_FIELDS = ("lander", "campaign")


class PushSubscription(models.Model):
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="push_subscriptions")
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.endpoint[:60]


class SignupMessage(models.Model):
    """The first message a visitor wrote to a profile while signing up (step 0). It is
    delivered to that profile's conversation once the member's e-mail is confirmed."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="signup_messages")
    profile_id = models.BigIntegerField()
    text = models.TextField(max_length=5000)
    created = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.user_id} -> {self.profile_id}"


class StaffEnrolmentLink(models.Model):
    """A one-time link with which a staff member of the operators' admin (public schema)
    sets up the second step (apps.accounts.services.staff_enrolment). Only the SHA-256 of
    the link's random token is kept, so the table (or a copy of it) opens nothing; the
    link works once, within its validity, and a newer link for the same staff member
    replaces it. The table exists in the sites' schemas too (the app is in both) and stays
    empty there: members have no second step."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="staff_enrolment_links")
    token_hash = models.CharField(max_length=64, unique=True)
    # Who made it, as they were (a name, not a key: deleting that staff user keeps it).
    made_by = models.CharField(max_length=150)
    created = models.DateTimeField(default=timezone.now)
    expires = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("second step set-up link")
        verbose_name_plural = _("second step set-up links")

    def __str__(self) -> str:
        return f"{self.user_id} until {self.expires:%Y-%m-%d %H:%M}"
