"""Operators' screens: traffic networks with their deals and postback URLs, each
network's postbacks with their answers (and a resend), and the revenue dashboard
(apps.conversions.views, /admin/reports/)."""

from django.contrib import admin, messages
from django.db import transaction
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from apps.conversions.models import Network, Postback, PostbackAttempt, PostbackRule
from apps.conversions.postbacks import postback_resend


class PostbackRuleInline(admin.StackedInline):
    model = PostbackRule
    extra = 1
    fields = ("event", "url", "payout_fixed", "payout_share")


@admin.register(Network)
class NetworkAdmin(admin.ModelAdmin):
    list_display = ("name", "active", "site_names", "postbacks_link")
    list_filter = ("active",)
    search_fields = ("name",)
    fields = ("name", "active", "currency", "sites")
    inlines = [PostbackRuleInline]

    class Media:
        css = {"all": ("conversions/admin.css",)}

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("sites")

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name == "sites":
            from apps.tenants.models import Site

            # The operators' host is no site members sign up on.
            kwargs["queryset"] = Site.objects.exclude(schema_name="public").order_by("name")
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    @admin.display(description=_("sites"))
    def site_names(self, obj: Network) -> str:
        names = [site.name for site in obj.sites.all()]
        return ", ".join(names) if names else gettext("every site")

    @admin.display(description=_("postbacks"))
    def postbacks_link(self, obj: Network) -> str:
        url = reverse("admin:conversions_postback_changelist") + f"?network__id__exact={obj.pk}"
        return format_html('<a href="{}">{}</a>', url, gettext("Postbacks"))


class PostbackAttemptInline(admin.TabularInline):
    model = PostbackAttempt
    extra = 0
    fields = ("at", "status", "milliseconds", "answer")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_view_permission(self, request, obj=None) -> bool:
        # The tries are part of the postback: whoever sees it sees them.
        return request.user.has_perm("conversions.view_postback")


@admin.register(Postback)
class PostbackAdmin(admin.ModelAdmin):
    list_display = ("created", "network", "event", "site", "state", "attempts", "payout_shown", "sent_at")
    list_filter = ("network", "state", "event", ("site", admin.RelatedOnlyFieldListFilter))
    list_select_related = ("network", "site")
    date_hierarchy = "created"
    readonly_fields = (
        "network",
        "site",
        "event",
        "member_id",
        "url",
        "amount",
        "payout",
        "currency",
        "state",
        "attempts",
        "next_try",
        "created",
        "sent_at",
    )
    fields = readonly_fields
    inlines = [PostbackAttemptInline]

    class Media:
        css = {"all": ("conversions/admin.css",)}

    actions = ["resend"]
    show_full_result_count = False

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("payout"))
    def payout_shown(self, obj: Postback) -> str:
        return f"{obj.payout / 100:.2f} {obj.currency}"

    @admin.action(description=_("Send again"), permissions=["change"])
    def resend(self, request, queryset) -> None:
        with transaction.atomic():
            count = 0
            for postback in queryset:
                postback_resend(postback)
                count += 1
        self.message_user(
            request,
            ngettext("%(count)d postback is sent again.", "%(count)d postbacks are sent again.", count)
            % {"count": count},
            messages.SUCCESS,
        )
