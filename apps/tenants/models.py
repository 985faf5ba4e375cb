"""Sites (tenants), their domains and the companies behind them. Public schema."""

import re
from datetime import datetime

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import connection, models
from django.templatetags.static import static
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django_countries.fields import CountryField
from django_tenants.models import DomainMixin, TenantMixin
from django_tenants.utils import get_creation_fakes_migrations, get_public_schema_name, schema_exists

from apps.common.encryption import EncryptedCharField
from apps.common.i18n import INTERFACE_LANGUAGES
from apps.common.storage import cdn_url
from apps.common.vapid import vapid_public_key_of
from apps.tenants.cloning import schema_clone, schema_name_check
from apps.tenants.constants import (
    DEFAULT_INTERESTS,
    GIFT_PICTURES,
    LANDER_PREFIXES,
    PROFILE_FIELD_NAMES,
    SEARCHABLE_PROFILE_FIELDS,
    TERMS_VERSION_DATE,
    Niche,
    Signups,
    YesNo,
)
from apps.tenants.regions import regions_for_country
from apps.tenants.validators import (
    hex_colour,
    hostname,
    https_url,
    one_line,
    phone_number,
    sms_sender_format,
    twilio_sid_format,
    vapid_private_key,
    vapid_public_key,
    vat_number,
)

LANGUAGE_CHOICES = [(code, code) for code in INTERFACE_LANGUAGES]


def _is_valid(validator, value) -> bool:
    try:
        validator(value)
    except ValidationError:
        return False
    return True


def _default_languages() -> list[str]:
    return ["en"]


def _default_countries() -> list[str]:
    return ["GB"]


def _default_visible_fields() -> list[str]:
    return ["age", "country", "region", "city", "relationship_status", "body_type", "interests", "about_me"]


def _default_search_fields() -> list[str]:
    return ["relationship_status", "body_type"]


def _default_interests() -> list[str]:
    return list(DEFAULT_INTERESTS)


class Company(models.Model):
    """The legal entity behind one or more sites (spec §3 "Company info")."""

    name = models.CharField(_("name"), max_length=200, validators=[one_line])
    address = models.CharField(_("address"), max_length=300, validators=[one_line])
    kvk = models.CharField(
        _("chamber of commerce number"),
        max_length=30,
        blank=True,
        validators=[RegexValidator(r"^[0-9A-Za-z .-]{4,30}$", _("Enter the registration number: letters and digits."))],
    )
    city = models.CharField(_("city"), max_length=120, validators=[one_line])
    country = CountryField(_("country"))
    tradenames = ArrayField(
        models.CharField(max_length=200),
        default=list,
        blank=True,
        verbose_name=_("trade names"),
        help_text=_("Comma-separated."),
    )
    vat_numbers = ArrayField(
        models.CharField(max_length=30),
        default=list,
        blank=True,
        verbose_name=_("VAT numbers"),
        help_text=_("Comma-separated, e.g. NL123456789B01."),
    )
    support_phone = models.CharField(_("support phone"), max_length=40, blank=True, validators=[phone_number])
    delete_discount = models.PositiveSmallIntegerField(
        _("delete discount (%)"),
        default=0,
        validators=[MaxValueValidator(90)],
        help_text=_("Discount offered to members who are about to delete their account."),
    )
    added = models.DateTimeField(_("added"), default=timezone.now)

    class Meta:
        verbose_name = _("company")
        verbose_name_plural = _("companies")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        # Each item of a list is checked here: the admin shows an item's own error from a
        # list field's validators without its message.
        errors = {}
        bad = [name for name in self.tradenames if not _is_valid(one_line, name)]
        if bad:
            errors["tradenames"] = [one_line.message]
        bad = [number for number in self.vat_numbers if not _is_valid(vat_number, number)]
        if bad:
            errors["vat_numbers"] = [
                _("Not a VAT number: %(numbers)s.") % {"numbers": ", ".join(bad)},
                vat_number.message,
            ]
        if errors:
            raise ValidationError(errors)

    @property
    def terms_version_date(self) -> datetime:
        base = datetime.fromisoformat(TERMS_VERSION_DATE)
        return max(base, self.added)


class ChatSafetyRule(models.TextChoices):
    HOLD = "hold", _("Hold for support's review (the recipient gets it when approved)")
    NOTICE = "notice", _("Deliver it with a safety notice for the recipient")
    OFF = "off", _("Deliver it as any other message")


class Site(TenantMixin):
    """One white-label dating site: its schema holds its members and all they make."""

    auto_create_schema = True
    auto_drop_schema = True

    name = models.CharField(_("name"), max_length=100, validators=[one_line])
    niche = models.PositiveSmallIntegerField(_("niche"), choices=Niche.choices, default=Niche.GENERAL)
    company = models.ForeignKey(Company, on_delete=models.PROTECT, null=True, blank=True, related_name="sites")
    is_active = models.BooleanField(_("active"), default=True)
    created = models.DateTimeField(auto_now_add=True)

    # Languages and countries (spec §1, §9).
    languages = ArrayField(
        models.CharField(max_length=5, choices=LANGUAGE_CHOICES),
        default=_default_languages,
        verbose_name=_("interface languages"),
        help_text=_(
            "Languages offered on this site, comma-separated, the default first; "
            "of: da, de, en, es, fi, fr, it, nb, nl, pl, sv."
        ),
    )
    domain_language = models.CharField(
        _("domain language"),
        max_length=5,
        choices=LANGUAGE_CHOICES,
        blank=True,
        help_text=_("Language used when a visitor has no language cookie."),
    )
    # The operator's order is kept: the first country is the default for visitors.
    countries = CountryField(_("countries"), multiple=True, multiple_sort=False, default=_default_countries)
    # Spec §3 `region_data`: the regions of the site's countries offered in profiles and
    # search (ISO 3166-2, top level); empty offers them all.
    regions = ArrayField(
        models.CharField(max_length=10),
        default=list,
        blank=True,
        verbose_name=_("regions"),
        help_text=_("The regions offered in profiles and search; none chosen: every region of the site's countries."),
    )

    # Spec §3 "Settings (from the server)".
    index_title = models.CharField(_("index title"), max_length=200, blank=True, validators=[one_line])
    description = models.TextField(_("description"), max_length=1000, blank=True)
    cdn_prefix = models.CharField(
        _("CDN prefix"),
        max_length=200,
        blank=True,
        validators=[https_url],
        help_text=_("An https:// address the site's files are served from; empty: the site's own host."),
    )
    signups = models.CharField(_("signups"), max_length=20, choices=Signups.choices, default=Signups.ALL)
    logged_out_search = models.BooleanField(_("visitors may search"), default=False)
    logged_out_search_trafficsource = models.BooleanField(
        _("visitors with a tracking network may search"), default=True
    )
    push_public_key = models.CharField(
        _("push public key (VAPID)"), max_length=200, blank=True, validators=[vapid_public_key]
    )
    # Keys of outside services are encrypted at rest (apps.common.encryption) and
    # write-only in the admin (apps.tenants.admin.SiteAdminForm.SECRETS).
    push_private_key = EncryptedCharField(
        _("push private key (VAPID)"), max_length=200, blank=True, validators=[vapid_private_key]
    )
    message_credits = models.PositiveSmallIntegerField(
        _("credits per message"), default=1, validators=[MaxValueValidator(1000)]
    )
    photo_credits = models.PositiveSmallIntegerField(
        _("credits per photo"), default=2, validators=[MaxValueValidator(1000)]
    )
    gift_credits = models.PositiveSmallIntegerField(
        _("credits per gift"), default=3, validators=[MaxValueValidator(1000)]
    )
    signup_credits = models.PositiveSmallIntegerField(
        _("credits at signup"), default=0, validators=[MaxValueValidator(10000)]
    )
    message_length = models.PositiveIntegerField(
        _("maximum message length"), default=1000, validators=[MinValueValidator(10), MaxValueValidator(10000)]
    )
    support_email = models.EmailField(_("support e-mail"), blank=True)
    support_phone = models.CharField(_("support phone"), max_length=40, blank=True, validators=[phone_number])
    fictional_icon = models.CharField(_("fictional profile icon"), max_length=8, default="★", validators=[one_line])
    fictional_warning = models.CharField(
        _("fictional profile warning"),
        max_length=500,
        default="Profiles marked with ★ are fictional and are operated by the site.",
        validators=[one_line],
    )
    fictional_singular = models.CharField(
        _("fictional, singular"), max_length=100, default="fictional profile", validators=[one_line]
    )
    fictional_plural = models.CharField(
        _("fictional, plural"), max_length=100, default="fictional profiles", validators=[one_line]
    )
    enable_site_entry_popup = models.CharField(
        _("site-entry warning"), max_length=3, choices=YesNo.choices, default=YesNo.YES
    )
    entry_popup_countries = CountryField(
        _("site-entry warning countries"),
        multiple=True,
        blank=True,
        help_text=_("Show the warning only to visitors from these countries; empty shows it to all."),
    )
    visible_profile_fields = ArrayField(
        models.CharField(max_length=30),
        default=_default_visible_fields,
        blank=True,
        verbose_name=_("visible profile fields"),
    )
    visible_profile_notes = models.BooleanField(_("show profile notes"), default=True)
    search_fields = ArrayField(
        models.CharField(max_length=30), default=_default_search_fields, blank=True, verbose_name=_("search fields")
    )
    refund_days = models.PositiveSmallIntegerField(
        _("refund period (days)"), default=14, validators=[MaxValueValidator(365)]
    )
    member_resell = models.BooleanField(_("show resell entries"), default=False)
    chat_safety_rule = models.CharField(
        _("first messages with scam signals"),
        max_length=10,
        choices=ChatSafetyRule.choices,
        default=ChatSafetyRule.NOTICE,
        help_text=_(
            "What happens to a new account's first message in a conversation when it carries a link, "
            "a phone number, an e-mail address, a messenger name, money or gift-card words, or was sent "
            "to many members."
        ),
    )
    mail_name = models.CharField(_("sender name in e-mails"), max_length=100, blank=True, validators=[one_line])
    min_age = models.PositiveSmallIntegerField(
        _("minimum age"), default=18, validators=[MinValueValidator(18), MaxValueValidator(99)]
    )
    auto_approve_photos = models.BooleanField(_("approve photos automatically"), default=False)
    interests = ArrayField(
        models.CharField(max_length=60),
        default=_default_interests,
        blank=True,
        size=100,
        verbose_name=_("interests"),
        help_text=_("Comma-separated; members pick theirs from these."),
    )

    # Payments (issue 6): which gateway takes the site's payments, with its own key.
    payment_gateway = models.CharField(
        _("payment gateway"),
        max_length=20,
        choices=[("sandbox", _("Sandbox (test payments)")), ("mollie", "Mollie")],
        default="sandbox",
    )
    mollie_api_key = EncryptedCharField(
        _("Mollie API key"),
        max_length=100,
        blank=True,
        help_text=_("The site's own key (live_… or test_…); required when the gateway is Mollie."),
    )
    direct_debit_enabled = models.BooleanField(_("offer SMS direct debit"), default=True)
    # SMS (the direct-debit codes, apps.payments.sms): the deployment's backend
    # (SMS_BACKEND) or the site's own Twilio account, its auth token encrypted.
    sms_provider = models.CharField(
        _("SMS provider"),
        max_length=20,
        choices=[("", _("The deployment's default")), ("twilio", "Twilio")],
        blank=True,
        default="",
    )
    twilio_account_sid = models.CharField(
        _("Twilio account SID"), max_length=34, blank=True, validators=[twilio_sid_format]
    )
    twilio_auth_token = EncryptedCharField(
        _("Twilio auth token"),
        max_length=100,
        blank=True,
        help_text=_("Sends the messages and checks the delivery receipts' signatures."),
    )
    sms_sender = models.CharField(
        _("SMS sender"),
        max_length=16,
        blank=True,
        validators=[sms_sender_format],
        help_text=_(
            "An alphanumeric sender ID (up to 11 letters, digits and spaces, at least one letter) or the "
            "account's number in +E.164 form. Empty: the deployment's sender."
        ),
    )

    # Theme.
    theme_primary = models.CharField(_("primary colour"), max_length=7, default="#5566e8", validators=[hex_colour])
    theme_secondary = models.CharField(_("secondary colour"), max_length=7, default="#b8a4e3", validators=[hex_colour])

    class Meta:
        verbose_name = _("site")
        verbose_name_plural = _("sites")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def lander_prefix(self) -> str:
        return LANDER_PREFIXES[Niche(self.niche)]

    @property
    def default_language(self) -> str:
        return self.languages[0] if self.languages else "en"

    @property
    def country_codes(self) -> list[str]:
        return [country.code for country in self.countries]

    @property
    def sender_name(self) -> str:
        return self.mail_name or self.name

    def create_schema(self, check_if_exists: bool = False, sync_schema: bool = True, verbosity: int = 1) -> bool:
        """Create the site's schema as an exact copy of the template schema
        (apps.tenants.cloning), which takes the same fraction of a second however many
        sites exist. Without a template schema (or with TENANT_CREATION_FAKES_MIGRATIONS
        off) django-tenants creates an empty schema and replays every migration.
        The public schema's own row never creates a schema. True if a schema was made."""
        if self.schema_name == get_public_schema_name():
            return False
        schema_name_check(self.schema_name)
        if check_if_exists and schema_exists(self.schema_name):
            return False
        template = self.get_base_schema() if get_creation_fakes_migrations() else None
        if not (sync_schema and template and schema_exists(template)):
            super().create_schema(check_if_exists=False, sync_schema=sync_schema, verbosity=verbosity)
            return sync_schema
        schema_clone(schema_name=self.schema_name, template=template)
        connection.set_schema_to_public()
        return True

    def clean(self) -> None:
        errors: dict[str, list] = {}
        # A new site's schema name (a blank one is derived later: admin, site_create).
        # The template's would make the site write into the template.
        if self._state.adding and self.schema_name:
            try:
                schema_name_check(self.schema_name)
            except ValidationError as error:
                errors.setdefault("schema_name", []).extend(error.messages)
            if self.schema_name in (settings.PUBLIC_SCHEMA_NAME, settings.TENANT_BASE_SCHEMA):
                errors.setdefault("schema_name", []).append(_("This schema is reserved."))
        if not self.languages:
            errors.setdefault("languages", []).append(_("Choose at least one language."))
        if len(set(self.languages)) != len(self.languages):
            errors.setdefault("languages", []).append(_("Each language may be listed once."))
        if self.domain_language and self.domain_language not in self.languages:
            errors.setdefault("domain_language", []).append(
                _("The domain language must be one of the site's languages.")
            )
        if not self.countries:
            errors.setdefault("countries", []).append(_("Choose at least one country."))
        bad = [name for name in self.visible_profile_fields if name not in PROFILE_FIELD_NAMES]
        if bad:
            errors.setdefault("visible_profile_fields", []).append(
                _("Unknown profile fields: %(names)s") % {"names": ", ".join(bad)}
            )
        bad = [name for name in self.search_fields if name not in SEARCHABLE_PROFILE_FIELDS]
        if bad:
            errors.setdefault("search_fields", []).append(
                _("Fields that cannot be searched: %(names)s") % {"names": ", ".join(bad)}
            )
        if self.sms_provider == "twilio":
            if not self.twilio_account_sid:
                errors.setdefault("twilio_account_sid", []).append(_("Enter the site's Twilio account SID."))
            if not re.fullmatch(r"[0-9a-f]{32}", self.twilio_auth_token or ""):
                errors.setdefault("twilio_auth_token", []).append(
                    _("Enter the site's Twilio auth token (32 characters 0-9 and a-f).")
                )
            if not self.sms_sender and not settings.TWILIO_SENDER:
                errors.setdefault("sms_sender", []).append(_("Enter the sender of the site's text messages."))
        if self.payment_gateway == "mollie" and not re.match(r"^(live|test)_\w{20,}$", self.mollie_api_key or ""):
            errors.setdefault("mollie_api_key", []).append(_("Enter the site's Mollie API key (live_… or test_…)."))
        for name in ("visible_profile_fields", "search_fields"):
            if len(set(getattr(self, name))) != len(getattr(self, name)):
                errors.setdefault(name, []).append(_("Each field may be listed once."))
        folded = [interest.strip().casefold() for interest in self.interests]
        if not all(_is_valid(one_line, interest) for interest in self.interests):
            errors.setdefault("interests", []).append(one_line.message)
        elif any(not interest for interest in folded):
            errors.setdefault("interests", []).append(_("An interest may not be empty."))
        elif len(set(folded)) != len(folded):
            errors.setdefault("interests", []).append(_("Each interest may be listed once."))
        self._clean_regions(errors)
        self._clean_push_keys(errors)
        if errors:
            raise ValidationError(errors)

    def _clean_regions(self, errors: dict) -> None:
        if len(set(self.regions)) != len(self.regions):
            errors.setdefault("regions", []).append(_("Each region may be listed once."))
        offered = {region["code"] for code in self.country_codes for region in regions_for_country(code)}
        bad = [code for code in self.regions if code not in offered]
        if bad:
            errors.setdefault("regions", []).append(
                _("Not a region of the site's countries: %(codes)s") % {"codes": ", ".join(bad)}
            )

    def _clean_push_keys(self, errors: dict) -> None:
        """A site's own push key pair needs both halves, and they must belong together."""
        public, private = self.push_public_key, self.push_private_key
        if bool(public) != bool(private):
            field = "push_private_key" if public else "push_public_key"
            errors.setdefault(field, []).append(_("A site's own push key pair needs both halves."))
            return
        if not (public and private and _is_valid(vapid_public_key, public) and _is_valid(vapid_private_key, private)):
            return  # the fields' own validators say what is wrong
        if vapid_public_key_of(private) != public.rstrip("="):
            errors.setdefault("push_public_key", []).append(_("This public key does not belong to the private key."))


class Domain(DomainMixin):
    """A host name of a site. Its HTTPS state is written by the proxy's certificate
    checks and the site's own requests (apps.tenants.tls), never in the admin."""

    # When the proxy last asked whether it may get a certificate for this name (at most
    # every few minutes), and when a request last came in over HTTPS: that one proves a
    # certificate was issued and is served.
    certificate_requested = models.DateTimeField(_("certificate requested"), null=True, blank=True, editable=False)
    last_seen_https = models.DateTimeField(_("last seen over HTTPS"), null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("domain")
        verbose_name_plural = _("domains")

    def __str__(self) -> str:
        return self.domain

    def clean(self) -> None:
        self.domain = (self.domain or "").strip().lower().rstrip(".")
        try:
            hostname(self.domain)
        except ValidationError as error:
            raise ValidationError({"domain": error.messages}) from error


class MinimumMessageCost(models.Model):
    """Per-country minimum price of a message (spec §3 `minimum_message_costs`)."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="minimum_message_costs")
    country = CountryField(_("country"))
    costs = models.PositiveSmallIntegerField(_("credits"), validators=[MinValueValidator(1), MaxValueValidator(1000)])
    currency = models.CharField(
        _("currency"),
        max_length=3,
        default="EUR",
        validators=[RegexValidator(r"^[A-Z]{3}$", _("Use a three-letter ISO currency code."))],
    )

    class Meta:
        verbose_name = _("minimum message cost")
        verbose_name_plural = _("minimum message costs")
        constraints = [models.UniqueConstraint(fields=["site", "country"], name="unique_min_message_cost_country")]

    def __str__(self) -> str:
        return f"{self.country}: {self.costs} {self.currency}"


class MemberDirectoryEntry(models.Model):
    """Public-schema index of every site's members, so support finds anyone with one
    query. Kept current by the account services (signup, e-mail change, deletion)."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="directory_entries")
    member_id = models.BigIntegerField(_("member id"))
    email = models.EmailField(_("e-mail address"))
    name = models.CharField(_("name"), max_length=150)
    status = models.CharField(_("status"), max_length=20)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("member directory entry")
        verbose_name_plural = _("member directory")
        constraints = [models.UniqueConstraint(fields=["site", "member_id"], name="unique_directory_member")]
        indexes = [
            models.Index(models.functions.Upper("email"), name="directory_email_idx"),
            models.Index(models.functions.Upper("name"), name="directory_name_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.name} <{self.email}> ({self.site_id}:{self.member_id})"


def gift_picture_url(emoji: str) -> str | None:
    """The static picture of a default gift's emoji (GIFT_PICTURES), else None."""
    picture = GIFT_PICTURES.get((emoji or "").replace("\ufe0f", ""))
    return static(picture) if picture else None


class Gift(models.Model):
    """A gift members of a site can send in the chat (spec §2 "message footer with ...
    gifts"), shown as a picture: the operator's upload, else the default gifts' own
    (gift_picture_url), else its emoji. Each costs the site's `gift_credits`."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="gifts")
    name = models.CharField(_("name"), max_length=100)
    emoji = models.CharField(_("emoji"), max_length=16, blank=True)
    image = models.ImageField(_("picture"), upload_to="gifts/", blank=True)
    position = models.PositiveSmallIntegerField(_("position"), default=0)
    is_active = models.BooleanField(_("offered"), default=True)

    class Meta:
        verbose_name = _("gift")
        verbose_name_plural = _("gifts")
        ordering = ["position", "pk"]
        constraints = [
            models.CheckConstraint(condition=~models.Q(emoji="") | ~models.Q(image=""), name="gift_has_emoji_or_image"),
        ]

    def __str__(self) -> str:
        return f"{self.emoji} {self.name}".strip()

    @property
    def picture_url(self) -> str | None:
        return cdn_url(self.image.url) if self.image else gift_picture_url(self.emoji)

    def clean(self) -> None:
        if not self.emoji and not self.image:
            raise ValidationError({"emoji": [_("Give the gift an emoji or a picture.")]})


class CampaignKind(models.TextChoices):
    NEWS = "news", _("News")
    PROMOTIONS = "promotions", _("Promotions")


class CampaignState(models.TextChoices):
    DRAFT = "draft", _("Draft")
    QUEUED = "queued", _("Queued")
    SENDING = "sending", _("Sending")
    DONE = "done", _("Done")


class Campaign(models.Model):
    """A "news" or "promotions" notice an operator sends to a site's members who opted
    in to that type (apps.notifications.campaigns). Public schema; each member's copy is
    an outbox row in the site's schema, and the counts here follow them."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="campaigns")
    kind = models.CharField(_("type"), max_length=20, choices=CampaignKind.choices, default=CampaignKind.NEWS)
    language = models.CharField(
        _("language"),
        max_length=5,
        choices=LANGUAGE_CHOICES,
        blank=True,
        help_text=_("Only members who use the site in this language; empty: all members."),
    )
    title = models.CharField(_("title"), max_length=80, help_text=_("The push title and the e-mail's heading."))
    body = models.TextField(_("text"), max_length=1000)
    button = models.CharField(_("button"), max_length=40, blank=True)
    url = models.CharField(
        _("page"),
        max_length=200,
        default="/",
        help_text=_("A page of the site the notice opens, e.g. /credits."),
        validators=[RegexValidator(r"^/(?!/)[^\s\\]*$", _("Enter a path of the site starting with /."))],
    )
    email = models.BooleanField(_("by e-mail"), default=True)
    push = models.BooleanField(_("by push"), default=True)
    state = models.CharField(_("state"), max_length=10, choices=CampaignState.choices, default=CampaignState.DRAFT)
    total = models.PositiveIntegerField(_("to send"), default=0)
    sent = models.PositiveIntegerField(_("sent"), default=0)
    failed = models.PositiveIntegerField(_("failed"), default=0)
    skipped = models.PositiveIntegerField(_("skipped"), default=0)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("campaign")
        verbose_name_plural = _("campaigns")
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.title
