from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django_tenants.utils import tenant_context

from apps.common.exceptions import ApplicationError
from apps.credits.models import CreditEntry
from apps.credits.services import credits_adjust, credits_unfreeze, ledger_balance
from apps.payments.methods import PAYMENT_METHODS
from apps.payments.models import Payment
from apps.tenants.constants import PROFILE_FIELDS, SEARCHABLE_PROFILE_FIELDS
from apps.tenants.models import (
    Company,
    CreditPackage,
    CreditPackagePrice,
    DiscountCode,
    Domain,
    Gift,
    MemberDirectoryEntry,
    MinimumMessageCost,
    Site,
)
from apps.tenants.selectors import regions_for_country
from apps.tenants.services import gifts_default_ensure, packages_default_ensure, schema_name_for
from apps.tenants.theme import MIN_CONTRAST, TEXT_ON_PRIMARY, TEXT_ON_SECONDARY, contrast_ratio


class DomainInline(admin.TabularInline):
    model = Domain
    extra = 1
    min_num = 1


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
    regions) are chosen, not typed. The Mollie key and the push private key are
    write-only: the page never contains them (only whether one is stored); leaving the
    field empty keeps the stored key, "remove" clears it."""

    SECRETS = ("mollie_api_key", "push_private_key")

    visible_profile_fields = forms.MultipleChoiceField(
        label=_("visible profile fields"),
        choices=PROFILE_FIELDS,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("What a profile page shows."),
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
    push_private_key = SecretField(label=_("push private key (VAPID)"), max_length=200)
    push_private_key_remove = forms.BooleanField(label=_("Remove the stored push private key"), required=False)

    class Meta:
        model = Site
        exclude = ()  # noqa: DJ006 - the admin's fieldsets choose the fields

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.is_bound:
            countries = _country_codes(self.data.getlist("countries") if hasattr(self.data, "getlist") else [])
        else:
            countries = _country_codes(self.initial.get("countries") or self.instance.countries or [])
        from django_countries import countries as country_names

        self.fields["regions"].choices = [
            (
                country_names.name(code) or code,
                [(region["code"], region["name"]) for region in regions_for_country(code)],
            )
            for code in countries
            if regions_for_country(code)
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
        for name, choices in (("visible_profile_fields", PROFILE_FIELDS), ("search_fields", PROFILE_FIELDS)):
            if name in cleaned:
                chosen = set(cleaned[name])
                cleaned[name] = [code for code, _label in choices if code in chosen]
        return cleaned


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin):
    form = SiteAdminForm
    list_display = ("name", "niche", "primary_domain", "languages", "is_active", "created")
    list_filter = ("niche", "is_active")
    search_fields = ("name", "domains__domain", "schema_name")
    inlines = [DomainInline, MinimumMessageCostInline, GiftInline]
    readonly_fields = ("created", "theme_preview")
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
        (_("Site-entry warning"), {"fields": ("enable_site_entry_popup", "entry_popup_countries")}),
        (
            _("Payments"),
            {"fields": ("payment_gateway", "mollie_api_key", "mollie_api_key_remove", "direct_debit_enabled")},
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

    def save_model(self, request, obj, form, change):
        if not obj.schema_name:
            obj.schema_name = schema_name_for(obj.name)
        super().save_model(request, obj, form, change)
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
            gifts_default_ensure(form.instance)
            packages_default_ensure(form.instance)

    def get_readonly_fields(self, request, obj=None):
        # The schema name is fixed once the schema exists.
        return (*self.readonly_fields, "schema_name") if obj else self.readonly_fields

    @admin.display(description=_("domain"))
    def primary_domain(self, obj: Site) -> str:
        return next((d.domain for d in obj.domains.all() if d.is_primary), "")


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


class CreditPackagePriceInline(admin.TabularInline):
    model = CreditPackagePrice
    extra = 1
    min_num = 1


@admin.register(CreditPackage)
class CreditPackageAdmin(SiteChoiceMixin, admin.ModelAdmin):
    list_display = ("__str__", "site", "price_list", "highlighted", "is_active", "position")
    list_filter = (("site", admin.RelatedOnlyFieldListFilter), "is_active", "highlighted")
    list_select_related = ("site",)
    ordering = ("site__name", "position", "credits")
    inlines = [CreditPackagePriceInline]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("prices")

    @admin.display(description=_("prices"))
    def price_list(self, obj: CreditPackage) -> str:
        return ", ".join(str(price) for price in obj.prices.all())


class DiscountCodeForm(forms.ModelForm):
    paymentmethods = forms.MultipleChoiceField(
        label=_("payment methods"),
        choices=[(code, label) for code, (label, _gateway) in PAYMENT_METHODS.items()],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("None chosen: every method."),
    )

    class Meta:
        model = DiscountCode
        fields = (
            "site",
            "code",
            "value_percentage",
            "country",
            "member_id",
            "expires",
            "currency",
            "minimum_order_value",
            "status",
            "paymentmethods",
        )

    def clean_code(self) -> str:
        return (self.cleaned_data.get("code") or "").strip().upper()


@admin.register(DiscountCode)
class DiscountCodeAdmin(SiteChoiceMixin, admin.ModelAdmin):
    form = DiscountCodeForm
    list_display = (
        "code",
        "site",
        "value_percentage",
        "country",
        "member_id",
        "currency",
        "minimum_order_value",
        "expires",
        "status",
        "is_expired",
    )
    list_filter = (("site", admin.RelatedOnlyFieldListFilter), "status")
    search_fields = ("code",)
    list_select_related = ("site",)
    ordering = ("site__name", "code")
    readonly_fields = ("created",)

    @admin.display(description=_("expired"), boolean=True)
    def is_expired(self, obj: DiscountCode) -> bool:
        return obj.expired


# --- Member directory and support tools ------------------------------------------------

LEDGER_ROWS = 30
PAYMENT_ROWS = 20


class CreditsAdjustForm(forms.Form):
    credits = forms.IntegerField(
        label=_("credits"),
        min_value=-100_000,
        max_value=100_000,
        help_text=_("Positive adds credits, negative takes them."),
    )
    note = forms.CharField(label=_("note"), max_length=300, help_text=_("Why the credits change (kept in the ledger)."))

    def clean_credits(self) -> int:
        credits = self.cleaned_data["credits"]
        if credits == 0:
            raise forms.ValidationError(_("Enter a number of credits other than 0."))
        return credits

    def clean_note(self) -> str:
        note = self.cleaned_data["note"].strip()
        if not note:
            raise forms.ValidationError(_("Say why the credits change."))
        return note


class CreditsUnfreezeForm(forms.Form):
    note = forms.CharField(label=_("note"), max_length=300, help_text=_("Why spending is allowed again."))

    def clean_note(self) -> str:
        note = self.cleaned_data["note"].strip()
        if not note:
            raise forms.ValidationError(_("Say why spending is allowed again."))
        return note


def _refund_services():
    """(refund_request, refundable) of apps.payments.services, or None while the payments
    app does not offer refunds."""
    try:
        from apps.payments import services as payment_services
    except ImportError:
        return None
    request = getattr(payment_services, "refund_request", None)
    refundable = getattr(payment_services, "refundable", None)
    return (request, refundable) if callable(request) and callable(refundable) else None


def _money(amount: int, currency: str) -> str:
    return f"{amount / 100:.2f} {currency}"


@admin.register(MemberDirectoryEntry)
class MemberDirectoryAdmin(admin.ModelAdmin):
    """Support finds a member of any site by e-mail, name or id with one query, and opens
    the member's credits and payments (run in that site's schema) from the entry."""

    list_display = ("email", "name", "site", "member_id", "status", "updated", "credits_link")
    list_filter = ("status", "site")
    search_fields = ("email", "name", "=member_id")
    list_select_related = ("site",)
    readonly_fields = ("site", "member_id", "email", "name", "status", "updated", "credits_link")

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("credits and payments"))
    def credits_link(self, obj: MemberDirectoryEntry) -> str:
        if obj.pk is None:
            return ""
        return format_html('<a href="{}">{}</a>', self._credits_url(obj), gettext("Credits and payments"))

    # --- Support tools: URLs ------------------------------------------------------------

    def _url_name(self, action: str) -> str:
        return f"{self.opts.app_label}_{self.opts.model_name}_{action}"

    def _credits_url(self, entry: MemberDirectoryEntry) -> str:
        return reverse(f"{self.admin_site.name}:{self._url_name('credits')}", args=[entry.pk])

    def get_urls(self):
        view = self.admin_site.admin_view  # staff only, CSRF protected, never cached
        return [
            path("<int:object_id>/credits/", view(self.credits_view), name=self._url_name("credits")),
            path(
                "<int:object_id>/credits/adjust/", view(self.credits_adjust_view), name=self._url_name("credits_adjust")
            ),
            path(
                "<int:object_id>/credits/unfreeze/",
                view(self.credits_unfreeze_view),
                name=self._url_name("credits_unfreeze"),
            ),
            path(
                "<int:object_id>/credits/refund/<str:payment_id>/",
                view(self.payment_refund_view),
                name=self._url_name("payment_refund"),
            ),
            *super().get_urls(),
        ]

    # --- Support tools: views -----------------------------------------------------------

    def _entry(self, request, object_id: int, *, change: bool) -> MemberDirectoryEntry:
        entry = MemberDirectoryEntry.objects.select_related("site").filter(pk=object_id).first()
        if entry is None:
            raise Http404
        allowed = self.has_change_permission(request, entry) if change else self.has_view_permission(request, entry)
        if not allowed:
            raise PermissionDenied
        return entry

    @staticmethod
    def _member(entry: MemberDirectoryEntry):
        """The member the entry stands for, read in the site's schema (call inside it)."""
        member = get_user_model().objects.filter(pk=entry.member_id).first()
        if member is None:
            raise Http404(gettext("The member no longer exists on the site."))
        return member

    def _credits_page(self, request, entry, *, adjust_form=None, unfreeze_form=None, status: int = 200):
        refunds = _refund_services()
        with tenant_context(entry.site):
            member = self._member(entry)
            ledger = ledger_balance(member)
            entries = list(CreditEntry.objects.filter(user_id=member.pk).select_related("payment")[:LEDGER_ROWS])
            payments = []
            for payment in Payment.objects.filter(user_id=member.pk).prefetch_related("refunds")[:PAYMENT_ROWS]:
                refundable = refunds[1](payment) if refunds else None
                payments.append(
                    {
                        "payment": payment,
                        "amount": _money(payment.amount, payment.currency),
                        "refunded": _money(payment.amount_refunded, payment.currency),
                        "charged_back": _money(payment.amount_charged_back, payment.currency),
                        "refunds": [
                            {"refund": refund, "amount": _money(refund.amount, payment.currency)}
                            for refund in payment.refunds.all()
                        ],
                        "refundable": refundable,
                        "refundable_amount": (
                            _money(refundable["amount"], refundable["currency"]) if refundable else ""
                        ),
                    }
                )
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Credits and payments of %(name)s") % {"name": entry.name},
            "opts": self.opts,
            "original": entry,
            "entry": entry,
            "member": member,
            "ledger": ledger,
            "ledger_differs": ledger != member.credits,
            "entries": entries,
            "payments": payments,
            "refunds_available": refunds is not None,
            "adjust_form": adjust_form or CreditsAdjustForm(),
            "unfreeze_form": unfreeze_form or CreditsUnfreezeForm(),
            "change_url": reverse(f"{self.admin_site.name}:{self._url_name('change')}", args=[entry.pk]),
            "adjust_url": reverse(f"{self.admin_site.name}:{self._url_name('credits_adjust')}", args=[entry.pk]),
            "unfreeze_url": reverse(f"{self.admin_site.name}:{self._url_name('credits_unfreeze')}", args=[entry.pk]),
            "refund_url_name": f"{self.admin_site.name}:{self._url_name('payment_refund')}",
        }
        return TemplateResponse(request, "admin/tenants/memberdirectoryentry/credits.html", context, status=status)

    def credits_view(self, request, object_id: int):
        entry = self._entry(request, object_id, change=False)
        return self._credits_page(request, entry)

    def credits_adjust_view(self, request, object_id: int):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        entry = self._entry(request, object_id, change=True)
        form = CreditsAdjustForm(request.POST)
        if not form.is_valid():
            return self._credits_page(request, entry, adjust_form=form, status=400)
        credits, note = form.cleaned_data["credits"], form.cleaned_data["note"]
        with tenant_context(entry.site):
            member = self._member(entry)
            try:
                credits_adjust(user=member, credits=credits, staff_name=request.user.get_username(), note=note)
            except ApplicationError as error:
                form.add_error("credits", error.message)
                failed = True
            else:
                failed = False
        if failed:
            return self._credits_page(request, entry, adjust_form=form, status=400)
        self.log_change(request, entry, f"Credits {credits:+d}: {note}")
        self.message_user(
            request,
            gettext("%(credits)+d credits for %(name)s. Balance: %(balance)d.")
            % {"credits": credits, "name": entry.name, "balance": member.credits},
            messages.SUCCESS,
        )
        return HttpResponseRedirect(self._credits_url(entry))

    def credits_unfreeze_view(self, request, object_id: int):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        entry = self._entry(request, object_id, change=True)
        form = CreditsUnfreezeForm(request.POST)
        if not form.is_valid():
            return self._credits_page(request, entry, unfreeze_form=form, status=400)
        note = form.cleaned_data["note"]
        with tenant_context(entry.site):
            member = self._member(entry)
            owed, frozen = member.credits_owed, member.credits_frozen
            if frozen or owed:
                credits_unfreeze(user=member, staff_name=request.user.get_username(), note=note)
        if not (frozen or owed):
            self.message_user(request, gettext("Spending was not frozen."), messages.WARNING)
        else:
            self.log_change(request, entry, f"Credits unfrozen ({owed} owed cleared): {note}")
            self.message_user(
                request,
                gettext("Spending is allowed again for %(name)s; %(owed)d owed credits cleared.")
                % {"name": entry.name, "owed": owed},
                messages.SUCCESS,
            )
        return HttpResponseRedirect(self._credits_url(entry))

    def payment_refund_view(self, request, object_id: int, payment_id: str):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        entry = self._entry(request, object_id, change=True)
        refunds = _refund_services()
        if refunds is None:
            raise Http404
        refund_request, refundable = refunds
        from apps.payments.gateways.base import GatewayError

        with tenant_context(entry.site):
            member = self._member(entry)
            payment = Payment.objects.filter(user_id=member.pk, public_id=payment_id).first()
            if payment is None:
                raise Http404
            error = refund = None
            if refundable(payment) is None:
                error = gettext("This payment cannot be refunded.")
            else:
                try:
                    refund = refund_request(payment=payment, requested_by=request.user.get_username())
                except ApplicationError as failure:
                    error = str(failure.message)
                except GatewayError:
                    error = gettext("The payment provider did not accept the refund. Please try again later.")
        if error:
            self.message_user(request, error, messages.ERROR)
        else:
            self.log_change(
                request, entry, f"Refund of payment {payment.public_id}: {refund.credits} credits, {refund.amount}"
            )
            self.message_user(
                request,
                gettext("Refund of %(amount)s (%(credits)d credits) requested for payment %(payment)s.")
                % {
                    "amount": _money(refund.amount, payment.currency),
                    "credits": refund.credits,
                    "payment": payment.public_id,
                },
                messages.SUCCESS,
            )
        return HttpResponseRedirect(self._credits_url(entry))


@admin.register(Gift)
class GiftAdmin(SiteChoiceMixin, admin.ModelAdmin):
    list_display = ("__str__", "site", "position", "is_active")
    list_filter = (("site", admin.RelatedOnlyFieldListFilter), "is_active")
    list_editable = ("position", "is_active")
    list_select_related = ("site",)
    search_fields = ("name", "site__name")
    ordering = ("site__name", "position", "pk")
    fields = ("site", "name", "emoji", "image", "position", "is_active")
