"""Conversions by traffic source (public schema): the partners' networks with their deals
and postback URLs, the postbacks owed to them, and the daily rollups the revenue
dashboard reads.

A network is shared by every site (or limited to some): operators buy traffic from the
same partners for many sites. A member's network is the `network` tracking parameter
kept at signup (apps.accounts SignupTracking), matched against Network.name without
regard to case. Members are never named to a partner by id or e-mail: {member} is a keyed
hash (apps.conversions.postbacks.member_hash)."""

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.conversions.macros import template_errors
from apps.tenants.models import Site


class Event(models.TextChoices):
    SIGNUP = "signup", _("Signup")
    EMAIL_CONFIRMED = "email_confirmed", _("E-mail confirmed")
    FIRST_PURCHASE = "first_purchase", _("First purchase")
    PURCHASE = "purchase", _("Later purchase")
    REFUND = "refund", _("Refund")
    CHARGEBACK = "chargeback", _("Chargeback")


# Events with an amount of money ({amount}, and a share as the payout).
MONEY_EVENTS = (Event.FIRST_PURCHASE, Event.PURCHASE, Event.REFUND, Event.CHARGEBACK)


class Network(models.Model):
    """A partner who sends paid traffic, by the name its links carry as `network`."""

    name = models.CharField(
        _("name"),
        max_length=100,
        unique=True,
        help_text=_("As the partner's links carry it in the network parameter (case does not matter)."),
    )
    active = models.BooleanField(_("active"), default=True)
    sites = models.ManyToManyField(
        Site, blank=True, related_name="+", verbose_name=_("sites"), help_text=_("None chosen: every site.")
    )
    currency = models.CharField(_("currency of fixed payouts"), max_length=3, default="EUR")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("traffic network")
        verbose_name_plural = _("traffic networks")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        self.name = self.name.strip().lower()
        super().save(*args, **kwargs)


class PostbackRule(models.Model):
    """What a network is paid for an event, and the URL that tells it."""

    network = models.ForeignKey(Network, on_delete=models.CASCADE, related_name="rules")
    event = models.CharField(_("event"), max_length=20, choices=Event.choices)
    url = models.CharField(
        _("postback URL"),
        max_length=1000,
        help_text=_(
            "An https address. Macros: {ref} {sub} {sub1} {sub2} {sub3} {aff_sub} {aff_sub1} {aff_sub2} {aff_sub3} "
            "{cpc} {event} {amount} {currency} {payout} {site} {lander} {campaign} {member}"
        ),
    )
    payout_fixed = models.PositiveIntegerField(_("fixed payout (cents)"), default=0)
    payout_share = models.DecimalField(
        _("share of the amount (%)"),
        max_digits=5,
        decimal_places=2,
        default=0,
        help_text=_("Instead of a fixed payout."),
    )

    class Meta:
        verbose_name = _("deal and postback")
        verbose_name_plural = _("deals and postbacks")
        constraints = [models.UniqueConstraint(fields=["network", "event"], name="conversions_rule_unique")]

    def __str__(self) -> str:
        return str(self.get_event_display())

    def clean(self) -> None:
        if self.url:
            errors = template_errors(self.url)
            if errors:
                raise ValidationError({"url": errors})


class PostbackState(models.TextChoices):
    PENDING = "pending", _("Waiting")
    SENT = "sent", _("Sent")
    FAILED = "failed", _("Failed")
    REFUSED = "refused", _("Refused (address not allowed)")


class Postback(models.Model):
    """One event told to one network: once (the key), retried until answered."""

    network = models.ForeignKey(Network, on_delete=models.CASCADE, related_name="postbacks", verbose_name=_("network"))
    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+", verbose_name=_("site"))
    event = models.CharField(_("event"), max_length=20, choices=Event.choices)
    # What makes the event one: "signup:<member>", "purchase:<payment>",
    # "refund:<payment>:<refunded total>"...
    key = models.CharField(max_length=100)
    member_id = models.BigIntegerField(_("member id"))
    url = models.CharField(_("URL"), max_length=2000)
    amount = models.BigIntegerField(_("amount (cents)"), default=0)
    payout = models.BigIntegerField(_("payout (cents)"), default=0)
    currency = models.CharField(_("currency"), max_length=3, blank=True)
    state = models.CharField(_("state"), max_length=10, choices=PostbackState.choices, default=PostbackState.PENDING)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    next_try = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)

    class Meta:
        verbose_name = _("postback")
        verbose_name_plural = _("postbacks")
        ordering = ["-created", "-pk"]
        constraints = [models.UniqueConstraint(fields=["network", "site", "key"], name="conversions_postback_once")]
        indexes = [
            models.Index(fields=["next_try"], name="conversions_postback_due", condition=models.Q(state="pending")),
        ]

    def __str__(self) -> str:
        return f"{self.network} {self.event} {self.key}"


class PostbackAttempt(models.Model):
    """A partner's answer to one try (or why there was none)."""

    postback = models.ForeignKey(Postback, on_delete=models.CASCADE, related_name="tries")
    at = models.DateTimeField(_("time"), auto_now_add=True)
    status = models.PositiveSmallIntegerField(_("HTTP status"), default=0)
    milliseconds = models.PositiveIntegerField(_("duration (ms)"), default=0)
    answer = models.CharField(_("answer"), max_length=200, blank=True)

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self) -> str:
        return f"{self.status} {self.answer[:40]}"


class DailyRollup(models.Model):
    """A site's counts of one day for one traffic source (network, ref, sub1, lander,
    campaign; "" for none) and one currency ("" for the rows without money). Updated in
    the event's transaction (apps.conversions.rollups), rebuilt by
    `conversions_rollup_rebuild`."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    network = models.CharField(max_length=100, blank=True)
    ref = models.CharField(max_length=100, blank=True)
    sub1 = models.CharField(max_length=100, blank=True)
    lander = models.CharField(max_length=40, blank=True)
    campaign = models.CharField(max_length=40, blank=True)
    currency = models.CharField(max_length=3, blank=True)
    visits = models.PositiveIntegerField(default=0)
    signups = models.PositiveIntegerField(default=0)
    confirmations = models.PositiveIntegerField(default=0)
    first_purchases = models.PositiveIntegerField(default=0)
    purchases = models.PositiveIntegerField(default=0)
    revenue = models.BigIntegerField(default=0)
    refunds = models.PositiveIntegerField(default=0)
    refunded = models.BigIntegerField(default=0)
    chargebacks = models.PositiveIntegerField(default=0)
    charged_back = models.BigIntegerField(default=0)

    class Meta:
        verbose_name = _("revenue report")
        verbose_name_plural = _("revenue reports")
        constraints = [
            models.UniqueConstraint(
                fields=["site", "day", "network", "ref", "sub1", "lander", "campaign", "currency"],
                name="conversions_rollup_unique",
            )
        ]
        indexes = [models.Index(fields=["day", "site"], name="conversions_rollup_day")]
        default_permissions = ()
        permissions = [("view_reports", _("Can see the revenue reports"))]

    def __str__(self) -> str:
        return f"{self.site_id} {self.day} {self.network or '-'}"
