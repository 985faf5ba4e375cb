from collections.abc import Callable

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from apps.tenants import tls
from apps.tenants.constants import PROFILE_FIELDS, SEARCHABLE_PROFILE_FIELDS
from apps.tenants.models import (
    Company,
    Domain,
    Gift,
    MinimumMessageCost,
    Site,
)
from apps.tenants.regions import regions_for_country
from apps.tenants.services import schema_name_for, site_defaults_ensure
from apps.tenants.theme import MIN_CONTRAST, TEXT_ON_PRIMARY, TEXT_ON_SECONDARY, contrast_ratio

# Whether this deployment lets the sandbox gateway take money is the payments app's rule
# (apps.payments.gateways.registry.sandbox_allowed); the payments admin hands it over
# here, so the sites' admin imports no app above it. Until then: not allowed.
_SANDBOX_RULE: list[Callable[[], bool]] = []


def site_admin_sandbox_rule_register(rule: Callable[[], bool]) -> None:
    _SANDBOX_RULE[:] = [rule]


def _sandbox_allowed() -> bool:
    return bool(_SANDBOX_RULE) and _SANDBOX_RULE[0]()


# Where the SMS provider reports the delivery of a site's messages is the payments app's
# (apps.payments.sms.sms_status_url); the payments admin hands it over like the rule above.
_SMS_STATUS_URL: list[Callable[[Site], str]] = []


def site_admin_sms_status_url_register(address: Callable[[Site], str]) -> None:
    _SMS_STATUS_URL[:] = [address]


def _sms_status_url(site: Site) -> str:
    return _SMS_STATUS_URL[0](site) if _SMS_STATUS_URL else ""


class DomainInline(admin.TabularInline):
    model = Domain
    extra = 1
    min_num = 1
    fields = ("domain", "is_primary", "https")
    readonly_fields = ("https",)

    @admin.display(description=_("HTTPS"))
    def https(self, obj: Domain) -> str:
        """Whether the proxy got the domain's certificate (apps.tenants.tls)."""
        state = tls.https_state(obj)
        return format_html('<span data-testid="domain-https">{}</span>', state) if state else ""


class MinimumMessageCostInline(admin.TabularInline):
    model = MinimumMessageCost
    extra = 0


class GiftInline(admin.TabularInline):
    """The site's gift catalogue (the chat's gifts); a new site starts with the
    default one (apps.tenants.services.DEFAULT_GIFTS)."""

    model = Gift
    extra = 0
    fields = ("position", "name", "emoji", "image", "is_active")
    ordering = ("position", "pk")


class SecretField(forms.CharField):
    """A key the admin takes but never shows back: empty keeps the stored one."""

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}))
        super().__init__(**kwargs)


def _country_codes(values) -> list[str]:
    return [str(getattr(value, "code", value)).upper() for value in values if value]


class SiteAdminForm(forms.ModelForm):
    """The site's settings (spec §3), each validated by the model (apps.tenants.models,
    apps.tenants.validators). Lists with fixed choices (profile fields, search fields,
    regions) are chosen, not typed. The Mollie key, the push private key and the Twilio
    auth token are
    write-only: the page never contains them (only whether one is stored); leaving the
    field empty keeps the stored key, "remove" clears it."""

    SECRETS = ("mollie_api_key", "push_private_key", "twilio_auth_token")

    visible_profile_fields = forms.MultipleChoiceField(
        label=_("visible profile fields"),
        choices=PROFILE_FIELDS,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("What profile pages and every profile card (search, likes, swipe game, match finder) show."),
    )
    search_fields = forms.MultipleChoiceField(
        label=_("search fields"),
        choices=[(name, label) for name, label in PROFILE_FIELDS if name in SEARCHABLE_PROFILE_FIELDS],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("What visitors and members can search on, besides age and place."),
    )
    regions = forms.MultipleChoiceField(
        label=_("regions"),
        required=False,
        widget=forms.SelectMultiple(attrs={"size": 12}),
        help_text=_(
            "The regions offered in profiles and search; none chosen: every region of the site's countries. "
            "After changing the countries, save to choose among their regions."
        ),
    )

    mollie_api_key = SecretField(label=_("Mollie API key"), max_length=100)
    mollie_api_key_remove = forms.BooleanField(label=_("Remove the stored Mollie key"), required=False)
    twilio_auth_token = SecretField(label=_("Twilio auth token"), max_length=100)
    twilio_auth_token_remove = forms.BooleanField(label=_("Remove the stored Twilio auth token"), required=False)
    push_private_key = SecretField(label=_("push private key (VAPID)"), max_length=200)
    push_private_key_remove = forms.BooleanField(label=_("Remove the stored push private key"), required=False)

    class Meta:
        model = Site
        exclude = ()  # noqa: DJ006 - the admin's fieldsets choose the fields
        # A SID is 34 characters: the admin's usual text field cut it off.
        widgets = {"twilio_account_sid": forms.TextInput(attrs={"class": "vTextField site-twilio-sid"})}
        help_texts = {
            "visible_profile_notes": _(
                "Notes under a profile's facts on its page and on cards: the word for a fictional profile "
                "(below), cam, partner profile."
            ),
            "fictional_singular": _("Labels a fictional profile, beside the icon, on its page and on cards."),
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.is_bound:
            countries = _country_codes(self.data.getlist("countries") if hasattr(self.data, "getlist") else [])
        else:
            countries = _country_codes(self.initial.get("countries") or self.instance.countries or [])
        from django_countries import countries as country_names

        self.fields["regions"].choices = [
            (country_names.name(code) or code, [(region["code"], region["name"]) for region in regions])
            for code in countries
            if (regions := regions_for_country(code))
        ]
        for name in self.SECRETS:
            stored = bool(getattr(self.instance, name, ""))
            self.fields[name].help_text = (
                _("A key is stored; it is never shown. Leave empty to keep it.") if stored else _("No key is stored.")
            )

    def _secret(self, name: str) -> str:
        value = (self.cleaned_data.get(name) or "").strip()
        if value:
            return value
        if self.cleaned_data.get(f"{name}_remove"):
            return ""
        return getattr(self.instance, name, "") or ""

    def clean(self):
        cleaned = super().clean()
        for name in self.SECRETS:
            cleaned[name] = self._secret(name)
        # Fixed choices are stored in their own order.
        for name in ("visible_profile_fields", "search_fields"):
            if name in cleaned:
                chosen = set(cleaned[name])
                cleaned[name] = [code for code, _label in PROFILE_FIELDS if code in chosen]
        return cleaned


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin):
    form = SiteAdminForm
    list_display = ("name", "niche", "primary_domain", "https", "languages", "payments", "is_active", "created")
    list_filter = ("niche", "is_active")
    search_fields = ("name", "domains__domain", "schema_name")
    inlines = [DomainInline, MinimumMessageCostInline, GiftInline]
    readonly_fields = ("created", "theme_preview", "payments", "sms_status_url")
    fieldsets = (
        (None, {"fields": ("name", "schema_name", "niche", "company", "is_active", "created")}),
        (_("Languages and countries"), {"fields": ("languages", "domain_language", "countries", "regions")}),
        (_("Texts"), {"fields": ("index_title", "description", "mail_name", "support_email", "support_phone")}),
        (
            _("Signups and search"),
            {"fields": ("signups", "logged_out_search", "logged_out_search_trafficsource", "min_age")},
        ),
        (
            _("Credits"),
            {
                "fields": (
                    "message_credits",
                    "photo_credits",
                    "gift_credits",
                    "signup_credits",
                    "message_length",
                    "refund_days",
                )
            },
        ),
        (
            _("Profiles"),
            {
                "fields": (
                    "visible_profile_fields",
                    "visible_profile_notes",
                    "search_fields",
                    "interests",
                    "auto_approve_photos",
                    "member_resell",
                    "fictional_icon",
                    "fictional_warning",
                    "fictional_singular",
                    "fictional_plural",
                )
            },
        ),
        (_("Chat safety"), {"fields": ("chat_safety_rule",)}),
        (_("Site-entry warning"), {"fields": ("enable_site_entry_popup", "entry_popup_countries")}),
        (
            _("Payments"),
            {
                "fields": (
                    "payments",
                    "payment_gateway",
                    "mollie_api_key",
                    "mollie_api_key_remove",
                    "direct_debit_enabled",
                )
            },
        ),
        (
            _("SMS"),
            {
                "fields": (
                    "sms_provider",
                    "twilio_account_sid",
                    "twilio_auth_token",
                    "twilio_auth_token_remove",
                    "sms_sender",
                    "sms_status_url",
                ),
                "description": _(
                    "Who sends the direct-debit codes. The deployment's default, or the site's own Twilio "
                    "account: give Twilio no address yourself, each message names the delivery-receipt "
                    "address below."
                ),
            },
        ),
        (_("Theme and delivery"), {"fields": ("theme_primary", "theme_secondary", "theme_preview", "cdn_prefix")}),
        (
            _("Push (VAPID)"),
            {
                "fields": ("push_public_key", "push_private_key", "push_private_key_remove"),
                "description": _("Empty: the deployment's key pair. A site's own pair needs both halves."),
            },
        ),
    )

    class Media:
        css = {"all": ("tenants/admin/theme_preview.css",)}
        js = ("tenants/admin/theme_preview.js",)

    def get_queryset(self, request):
        return super().get_queryset(request).exclude(schema_name="public").prefetch_related("domains")

    @admin.display(description=_("preview"))
    def theme_preview(self, obj: Site | None) -> str:
        """The top bar, a primary button and a secondary badge in the site's colours,
        with the contrast of the text on the primary colour; theme_preview.js redraws it
        as the colours are edited."""
        primary = obj.theme_primary if obj else Site._meta.get_field("theme_primary").default
        ratio = contrast_ratio(primary, TEXT_ON_PRIMARY)
        return format_html(
            '<div class="theme-preview" data-theme-preview data-on-primary="{}" data-on-secondary="{}" '
            'data-testid="theme-preview">'
            '<div class="theme-preview-topbar" data-preview="topbar"><span>{}</span><span>☰</span></div>'
            '<div class="theme-preview-body">'
            '<span class="theme-preview-button" data-preview="button">{}</span>'
            '<span class="theme-preview-badge" data-preview="badge">{}</span></div>'
            '<p class="theme-preview-contrast">{} <strong data-preview="ratio">{}:1</strong></p>'
            '<p class="theme-preview-warning" data-preview="warning" role="status"{}>{}</p>'
            '<p class="theme-preview-invalid" data-preview="invalid" hidden>{}</p>'
            "</div>",
            TEXT_ON_PRIMARY,
            TEXT_ON_SECONDARY,
            obj.name if obj and obj.name else gettext("Site name"),
            gettext("Send a message"),
            gettext("3 new"),
            gettext("Contrast of the text on the primary colour:"),
            f"{int(ratio * 100) / 100:.2f}",
            "" if ratio < MIN_CONTRAST else " hidden",
            gettext(
                "Below 4.5:1: text on the primary colour (the top bar, buttons) is hard to read. "
                "Choose a darker primary colour."
            ),
            gettext("Enter both colours as #rrggbb to see them here."),
        )

    @admin.display(description=_("delivery receipts"))
    def sms_status_url(self, obj: Site | None) -> str:
        """Where Twilio reports the delivery of the site's messages (apps.payments.views_sms)."""
        if obj is None or not obj.pk:
            return gettext("Shown once the site is saved.")
        return format_html('<code data-testid="sms-status-url">{}</code>', _sms_status_url(obj) or "—")

    @admin.display(description=_("payments"))
    def payments(self, obj: Site | None) -> str:
        """What the site's payments are: a badge while it is on the sandbox (test money:
        nothing is charged), saying so too where the deployment takes no test payments
        (ALLOW_TEST_PAYMENTS off: the site takes no payments at all)."""
        if obj is None or obj.payment_gateway != "sandbox":
            return obj.get_payment_gateway_display() if obj else ""
        if _sandbox_allowed():
            note = gettext("Members pay nothing and get the credits.")
        else:
            note = gettext("This deployment takes no test payments: the site takes no payments until Mollie is set.")
        return format_html(
            '<span class="test-payments-badge" data-testid="test-payments-badge">{}</span> '
            '<span class="test-payments-note">{}</span>',
            gettext("Test payments"),
            note,
        )

    def save_model(self, request, obj, form, change):
        if not obj.schema_name:
            obj.schema_name = schema_name_for(obj.name)
        super().save_model(request, obj, form, change)
        if obj.payment_gateway == "sandbox" and not _sandbox_allowed():
            # Saved all the same: an operator setting a site up may not have its Mollie
            # key yet, and the site refuses payments meanwhile (apps.payments.services).
            self.message_user(
                request,
                gettext(
                    "This site is on the sandbox gateway, and this deployment takes no test payments: "
                    "it takes no payments until you choose Mollie and enter its key."
                ),
                messages.WARNING,
            )
        if contrast_ratio(obj.theme_primary, TEXT_ON_PRIMARY) < MIN_CONTRAST:
            self.message_user(
                request,
                gettext(
                    "The text on the primary colour has a contrast below 4.5:1 and is hard to read. "
                    "Consider a darker primary colour."
                ),
                messages.WARNING,
            )

    def get_fieldsets(self, request, obj=None):
        """ "Remove" appears only for a key that is stored."""
        hidden = {f"{name}_remove" for name in SiteAdminForm.SECRETS if not getattr(obj, name, "")}
        return [
            (title, {**options, "fields": tuple(f for f in options["fields"] if f not in hidden)})
            for title, options in super().get_fieldsets(request, obj)
        ]

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is None and "schema_name" in form.base_fields:
            form.base_fields["schema_name"].required = False
            form.base_fields["schema_name"].help_text = _("Leave empty to derive it from the name.")
        return form

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        if not change:  # A new site gets the default gifts and credit packages (it may change them).
            site_defaults_ensure(form.instance)

    def get_readonly_fields(self, request, obj=None):
        # The schema name is fixed once the schema exists.
        return (*self.readonly_fields, "schema_name") if obj else self.readonly_fields

    @admin.display(description=_("domain"))
    def primary_domain(self, obj: Site) -> str:
        return next((d.domain for d in obj.domains.all() if d.is_primary), "")

    @admin.display(description=_("HTTPS"))
    def https(self, obj: Site) -> str:
        return format_html('<span data-testid="site-https">{}</span>', tls.https_summary(obj.domains.all()))


@admin.register(Company)
class CompanyAdmin(admin.ModelAdmin):
    list_display = ("name", "city", "country", "added")
    search_fields = ("name", "kvk")


def _sites_only():
    """The sites, without the public schema's own row (the operators' admin host)."""
    return Site.objects.exclude(schema_name=settings.PUBLIC_SCHEMA_NAME).order_by("name")


class SiteChoiceMixin:
    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "site":
            kwargs["queryset"] = _sites_only()
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(Gift)
class GiftAdmin(SiteChoiceMixin, admin.ModelAdmin):
    list_display = ("__str__", "site", "position", "is_active")
    list_filter = (("site", admin.RelatedOnlyFieldListFilter), "is_active")
    list_editable = ("position", "is_active")
    list_select_related = ("site",)
    search_fields = ("name", "site__name")
    ordering = ("site__name", "position", "pk")
    fields = ("site", "name", "emoji", "image", "position", "is_active")
