"""What a site sells, in the operators' admin: its credit packages with their prices and
its discount codes (public schema, beside the site)."""

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from apps.payments.gateways.registry import sandbox_allowed
from apps.payments.methods import PAYMENT_METHODS
from apps.payments.models import CreditPackage, CreditPackagePrice, DiscountCode
from apps.payments.sms import sms_status_url
from apps.tenants.admin import SiteChoiceMixin, site_admin_sandbox_rule_register, site_admin_sms_status_url_register

# The site admin's payments column and warning follow the registry's rule.
site_admin_sandbox_rule_register(sandbox_allowed)
# The site admin's SMS section shows where the provider reports deliveries.
site_admin_sms_status_url_register(sms_status_url)


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
