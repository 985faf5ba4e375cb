"""Payments, mandates, refunds, discount-code uses, SMS direct debit requests and the
sandbox gateway's own payments, which live in each site's schema; and what a site sells,
its credit packages with their prices and its discount codes, which live in the public
schema beside the site they belong to and are edited in the operators' admin
(PaymentsConfig.public_models, apps.tenants.routers).

Money is integer minor units plus a currency. A payment's status only moves forward,
driven by the status the gateway reports when we fetch it (ARCHITECTURE "Money")."""

import secrets

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django_countries.fields import CountryField

from apps.tenants.models import Site


def _public_id() -> str:
    return secrets.token_urlsafe(12)


class PaymentStatus(models.TextChoices):
    CREATED = "created", _("Created")  # not yet accepted by the gateway
    OPEN = "open", _("Open")  # waiting for the member at the checkout
    PENDING = "pending", _("Processing")
    PAID = "paid", _("Paid")
    FAILED = "failed", _("Failed")
    CANCELED = "canceled", _("Cancelled")
    EXPIRED = "expired", _("Expired")


# Forward order: a status may only be replaced by one of higher rank; the last four are final.
STATUS_RANK = {
    PaymentStatus.CREATED: 0,
    PaymentStatus.OPEN: 1,
    PaymentStatus.PENDING: 2,
    PaymentStatus.PAID: 3,
    PaymentStatus.FAILED: 3,
    PaymentStatus.CANCELED: 3,
    PaymentStatus.EXPIRED: 3,
}
FINAL_STATUSES = (PaymentStatus.PAID, PaymentStatus.FAILED, PaymentStatus.CANCELED, PaymentStatus.EXPIRED)


class Sequence(models.TextChoices):
    ONEOFF = "oneoff", _("One-off")
    FIRST = "first", _("First (stores a mandate)")
    RECURRING = "recurring", _("Repeat order")


class Mandate(models.Model):
    """Permission to charge the member again in one click (card or SEPA), as the gateway
    reported it after a first payment."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mandates")
    gateway = models.CharField(_("gateway"), max_length=20)
    customer_id = models.CharField(_("customer id at the gateway"), max_length=100)
    mandate_id = models.CharField(_("mandate id at the gateway"), max_length=100)
    method = models.CharField(_("payment method"), max_length=30)
    details = models.CharField(_("details"), max_length=200, blank=True, help_text=_("e.g. •••• 1234"))
    is_valid = models.BooleanField(_("valid"), default=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("mandate")
        verbose_name_plural = _("mandates")
        constraints = [models.UniqueConstraint(fields=["gateway", "mandate_id"], name="unique_gateway_mandate")]

    def __str__(self) -> str:
        return f"{self.method} {self.details}".strip()


class Payment(models.Model):
    public_id = models.CharField(_("public id"), max_length=24, unique=True, default=_public_id)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="payments"
    )
    # The package as bought (a copy: packages change later).
    package_id = models.BigIntegerField(_("package"))
    credits = models.PositiveIntegerField(_("credits"))
    currency = models.CharField(_("currency"), max_length=3)
    list_amount = models.PositiveIntegerField(_("price before discount (minor units)"))
    amount = models.PositiveIntegerField(_("amount (minor units)"))
    discount_code = models.CharField(_("discount code"), max_length=40, blank=True)
    discount_percentage = models.PositiveSmallIntegerField(_("discount (%)"), default=0)
    method = models.CharField(_("payment method"), max_length=30)
    country = models.CharField(_("payment country"), max_length=2, blank=True)
    sequence = models.CharField(_("sequence"), max_length=10, choices=Sequence.choices, default=Sequence.ONEOFF)
    mandate = models.ForeignKey(Mandate, on_delete=models.SET_NULL, null=True, blank=True, related_name="payments")
    gateway = models.CharField(_("gateway"), max_length=20)
    provider_id = models.CharField(_("id at the gateway"), max_length=100, null=True, blank=True)  # noqa: DJ001 (unique once known)
    checkout_url = models.URLField(_("checkout address"), max_length=1000, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=PaymentStatus.choices, default=PaymentStatus.CREATED)
    # What the gateway last reported as refunded or charged back, and the credits taken back for it.
    amount_refunded = models.PositiveIntegerField(_("refunded (minor units)"), default=0)
    amount_charged_back = models.PositiveIntegerField(_("charged back (minor units)"), default=0)
    credits_refunded = models.PositiveIntegerField(_("credits taken back for refunds"), default=0)
    credits_charged_back = models.PositiveIntegerField(_("credits taken back for chargebacks"), default=0)
    created = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)
    updated = models.DateTimeField(_("updated"), auto_now=True)
    paid_at = models.DateTimeField(_("paid at"), null=True, blank=True)
    synced_at = models.DateTimeField(_("last status fetch"), null=True, blank=True)

    class Meta:
        verbose_name = _("payment")
        verbose_name_plural = _("payments")
        ordering = ["-created", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["gateway", "provider_id"], name="unique_gateway_payment"),
            models.CheckConstraint(
                condition=models.Q(amount__lte=models.F("list_amount")), name="payment_amount_le_list"
            ),
            models.CheckConstraint(
                condition=models.Q(credits_refunded__lte=models.F("credits")), name="payment_refunded_credits_le_bought"
            ),
        ]
        indexes = [models.Index(fields=["user", "-created"], name="payment_user_created")]

    def __str__(self) -> str:
        return f"{self.public_id} {self.credits} credits {self.amount / 100:.2f} {self.currency} {self.status}"


class RefundStatus(models.TextChoices):
    REQUESTED = "requested", _("Requested")
    PENDING = "pending", _("Pending")
    REFUNDED = "refunded", _("Refunded")
    FAILED = "failed", _("Failed")


class Refund(models.Model):
    """A refund we asked the gateway for: unused credits of a payment within the site's
    refund period. The idempotency key makes a retried request refund once."""

    payment = models.ForeignKey(Payment, on_delete=models.PROTECT, related_name="refunds")
    credits = models.PositiveIntegerField(_("credits"))
    amount = models.PositiveIntegerField(_("amount (minor units)"))
    idempotency_key = models.CharField(_("idempotency key"), max_length=64, unique=True, default=_public_id)
    provider_id = models.CharField(_("id at the gateway"), max_length=100, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=RefundStatus.choices, default=RefundStatus.REQUESTED)
    requested_by = models.CharField(_("requested by"), max_length=150, help_text=_("member, or the support agent"))
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("refund")
        verbose_name_plural = _("refunds")
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.amount / 100:.2f} ({self.credits} credits) {self.status}"


class DiscountCodeUse(models.Model):
    """A member used a discount code (or the time bonus, or the welcome discount) on a
    paid payment: each member uses each code once ("Code already used")."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="discount_uses")
    code = models.CharField(_("code"), max_length=40)
    payment = models.OneToOneField(Payment, on_delete=models.CASCADE, related_name="discount_use")
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("discount code use")
        verbose_name_plural = _("discount code uses")
        constraints = [models.UniqueConstraint(fields=["user", "code"], name="unique_discount_use_per_member")]

    def __str__(self) -> str:
        return self.code


class SmsState(models.TextChoices):
    SENT = "sent", _("sent")
    DELIVERED = "delivered", _("delivered")
    FAILED = "failed", _("failed")


class DirectDebitRequest(models.Model):
    """An SMS-confirmed SEPA direct debit order (spec §2, §5: /directdebit)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="direct_debits")
    package_id = models.BigIntegerField(_("package"))
    account_holder = models.CharField(_("account holder"), max_length=100)
    iban = models.CharField(_("IBAN"), max_length=34)
    street = models.CharField(_("street"), max_length=100)
    house_number = models.CharField(_("house number"), max_length=20)
    postal_code = models.CharField(_("postal code"), max_length=20)
    city = models.CharField(_("city"), max_length=100)
    mobile = models.CharField(_("mobile number"), max_length=20, help_text=_("E.164"))
    authorized_at = models.DateTimeField(_("authorized at"))
    code_hash = models.CharField(_("SMS code (hashed)"), max_length=128)
    code_expires = models.DateTimeField(_("code expires"))
    attempts = models.PositiveSmallIntegerField(_("wrong codes entered"), default=0)
    confirmed_at = models.DateTimeField(_("confirmed at"), null=True, blank=True)
    payment = models.OneToOneField(
        Payment, on_delete=models.SET_NULL, null=True, blank=True, related_name="direct_debit"
    )
    # The code's SMS as the provider reports it (apps.payments.sms): "sent" once the
    # provider took it, then "delivered" or "failed" from its delivery receipt
    # (apps.payments.views_sms); "failed" too when the provider refused it at once.
    sms_state = models.CharField(_("SMS"), max_length=10, choices=SmsState.choices, blank=True, default="")
    sms_message_id = models.CharField(_("SMS message id"), max_length=64, blank=True, db_index=True)
    sms_error = models.CharField(_("SMS error"), max_length=120, blank=True)
    sms_updated = models.DateTimeField(_("SMS state changed"), null=True, blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("direct debit request")
        verbose_name_plural = _("direct debit requests")
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.account_holder} {self.iban[:4]}…{self.iban[-4:]}"


class SandboxPayment(models.Model):
    """The sandbox gateway's side of a payment: what a real provider keeps on its servers.
    Only apps.payments.gateways.sandbox reads or writes it."""

    id = models.CharField(primary_key=True, max_length=40)
    amount = models.PositiveIntegerField()
    currency = models.CharField(max_length=3)
    description = models.CharField(max_length=200)
    method = models.CharField(max_length=30)
    sequence = models.CharField(max_length=10, default="oneoff")
    customer_id = models.CharField(max_length=40, blank=True)
    mandate_id = models.CharField(max_length=40, blank=True)
    status = models.CharField(max_length=10, default="open")
    redirect_url = models.URLField(max_length=1000)
    webhook_url = models.URLField(max_length=1000)
    amount_refunded = models.PositiveIntegerField(default=0)
    amount_charged_back = models.PositiveIntegerField(default=0)
    refunds = models.JSONField(default=list, blank=True)  # [{"id", "amount", "key"}]
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.id} {self.status}"


# --- Public schema: what a site sells -------------------------------------------------

currency_code = RegexValidator(r"^[A-Z]{3}$", _("Use a three-letter ISO currency code."))


class CreditPackage(models.Model):
    """A credit bundle a site sells (spec §2 "Credits page with credit packages"), with a
    price in each currency the site takes. Public schema, edited with the site."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="credit_packages")
    credits = models.PositiveIntegerField(_("credits"), validators=[MinValueValidator(1)])
    highlighted = models.BooleanField(_("highlighted"), default=False)
    is_active = models.BooleanField(_("on sale"), default=True)
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        db_table = "tenants_creditpackage"  # the table of the tenants app it came from (payments 0002)
        verbose_name = _("credit package")
        verbose_name_plural = _("credit packages")
        ordering = ["position", "credits"]

    def __str__(self) -> str:
        return _("%(credits)s credits") % {"credits": self.credits}


class CreditPackagePrice(models.Model):
    """A package's price in one currency, in minor units (cents)."""

    package = models.ForeignKey(CreditPackage, on_delete=models.CASCADE, related_name="prices")
    currency = models.CharField(_("currency"), max_length=3, default="EUR", validators=[currency_code])
    amount = models.PositiveIntegerField(
        _("price (minor units)"), validators=[MinValueValidator(100)], help_text=_("In cents: 1995 is 19.95.")
    )

    class Meta:
        db_table = "tenants_creditpackageprice"
        verbose_name = _("price")
        verbose_name_plural = _("prices")
        constraints = [models.UniqueConstraint(fields=["package", "currency"], name="unique_package_currency")]

    def __str__(self) -> str:
        return f"{self.amount / 100:.2f} {self.currency}"


class DiscountCodeStatus(models.TextChoices):
    ACTIVE = "active", _("Active")
    INACTIVE = "inactive", _("Inactive")


class DiscountCode(models.Model):
    """A discount code of a site (spec §3 "Discount code"). Each member may use a code
    once (DiscountCodeUse). Empty country, currency or payment methods mean any;
    `member_id` limits the code to one member of the site."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="discount_codes")
    code = models.CharField(
        _("code"),
        max_length=40,
        validators=[RegexValidator(r"^[A-Z0-9_-]{3,40}$", _("Use 3 to 40 capital letters, digits, - or _."))],
    )
    value_percentage = models.PositiveSmallIntegerField(
        _("percentage"), validators=[MinValueValidator(1), MaxValueValidator(90)]
    )
    country = CountryField(_("country"), blank=True)
    member_id = models.BigIntegerField(_("member id"), null=True, blank=True)
    expires = models.DateTimeField(_("expires"), null=True, blank=True)
    currency = models.CharField(_("currency"), max_length=3, blank=True, validators=[currency_code])
    minimum_order_value = models.PositiveIntegerField(
        _("minimum order value (minor units)"), default=0, help_text=_("In cents, before the discount.")
    )
    status = models.CharField(
        _("status"), max_length=10, choices=DiscountCodeStatus.choices, default=DiscountCodeStatus.ACTIVE
    )
    paymentmethods = ArrayField(
        models.CharField(max_length=30), default=list, blank=True, verbose_name=_("payment methods")
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        db_table = "tenants_discountcode"
        verbose_name = _("discount code")
        verbose_name_plural = _("discount codes")
        constraints = [models.UniqueConstraint(fields=["site", "code"], name="unique_site_discount_code")]

    def __str__(self) -> str:
        return f"{self.code} ({self.value_percentage}%)"

    @property
    def expired(self) -> bool:
        return self.expires is not None and self.expires <= timezone.now()
