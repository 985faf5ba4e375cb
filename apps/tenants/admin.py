from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from apps.tenants.models import Company, Domain, MemberDirectoryEntry, MinimumMessageCost, Site
from apps.tenants.services import schema_name_for


class DomainInline(admin.TabularInline):
    model = Domain
    extra = 1
    min_num = 1


class MinimumMessageCostInline(admin.TabularInline):
    model = MinimumMessageCost
    extra = 0


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin):
    list_display = ("name", "niche", "primary_domain", "languages", "is_active", "created")
    list_filter = ("niche", "is_active")
    search_fields = ("name", "domains__domain", "schema_name")
    inlines = [DomainInline, MinimumMessageCostInline]
    readonly_fields = ("created",)
    fieldsets = (
        (None, {"fields": ("name", "schema_name", "niche", "company", "is_active", "created")}),
        (_("Languages and countries"), {"fields": ("languages", "domain_language", "countries")}),
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
            _("Theme and delivery"),
            {"fields": ("theme_primary", "theme_secondary", "cdn_prefix", "push_public_key", "push_private_key")},
        ),
    )

    def get_queryset(self, request):
        return super().get_queryset(request).exclude(schema_name="public").prefetch_related("domains")

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is None and "schema_name" in form.base_fields:
            form.base_fields["schema_name"].required = False
            form.base_fields["schema_name"].help_text = _("Leave empty to derive it from the name.")
        return form

    def save_model(self, request, obj, form, change):
        if not obj.schema_name:
            obj.schema_name = schema_name_for(obj.name)
        super().save_model(request, obj, form, change)

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


@admin.register(MemberDirectoryEntry)
class MemberDirectoryAdmin(admin.ModelAdmin):
    """Support finds a member of any site by e-mail, name or id with one query."""

    list_display = ("email", "name", "site", "member_id", "status", "updated")
    list_filter = ("status", "site")
    search_fields = ("email", "name", "=member_id")
    list_select_related = ("site",)
    readonly_fields = ("site", "member_id", "email", "name", "status", "updated")

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
