"""Operators' admin: campaigns ("news" and "promotions" notices to a site's opted-in
members) with their progress. A campaign is written as a draft, then sent with the
"Send" action or the button on its page; once queued it can no longer be changed."""

from django.contrib import admin, messages
from django.http import HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from apps.notifications.campaigns import campaign_queue
from apps.tenants.models import Campaign, CampaignState, Site

EDITABLE = ("site", "kind", "language", "title", "body", "button", "url", "email", "push")


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ("title", "site", "kind", "language", "state", "progress", "sent", "failed", "skipped", "created")
    list_filter = ("state", "kind", ("site", admin.RelatedOnlyFieldListFilter))
    search_fields = ("title", "body")
    actions = ["send"]
    readonly_fields = ("state", "progress", "total", "sent", "failed", "skipped", "started_at", "finished_at")
    fieldsets = (
        (None, {"fields": ("site", "kind", "language", "email", "push")}),
        (_("Message"), {"fields": ("title", "body", "button", "url")}),
        (_("Progress"), {"fields": readonly_fields}),
    )
    change_form_template = "admin/notifications/campaign/change_form.html"

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "site":
            kwargs["queryset"] = Site.objects.exclude(schema_name="public")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.state != CampaignState.DRAFT:
            return (*EDITABLE, *self.readonly_fields)
        return self.readonly_fields

    def has_delete_permission(self, request, obj=None) -> bool:
        return obj is None or obj.state == CampaignState.DRAFT

    @admin.display(description=_("progress"))
    def progress(self, obj: Campaign) -> str:
        done = obj.sent + obj.failed + obj.skipped
        if not obj.total:
            return "-" if obj.state != CampaignState.DONE else "0 / 0"
        percent = min(100, round(100 * done / obj.total))
        return format_html(
            '<progress max="100" value="{}" aria-label="{}">{} %</progress> {} / {}',
            percent,
            _("progress"),
            percent,
            done,
            obj.total,
        )

    @admin.action(description=_("Send the selected draft campaigns"), permissions=["change"])
    def send(self, request, queryset):
        queued = sum(campaign_queue(campaign) for campaign in queryset.filter(state=CampaignState.DRAFT))
        self.message_user(
            request,
            ngettext("%(count)s campaign is being sent.", "%(count)s campaigns are being sent.", queued)
            % {"count": queued},
            messages.SUCCESS if queued else messages.WARNING,
        )

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        return [
            path(
                "<int:object_id>/send/",
                self.admin_site.admin_view(self.send_view),
                name="%s_%s_send" % info,  # noqa: UP031 - the admin's own naming
            ),
            *super().get_urls(),
        ]

    def send_view(self, request, object_id: int):
        campaign = self.get_object(request, str(object_id))
        if request.method != "POST" or campaign is None or not self.has_change_permission(request, campaign):
            return HttpResponseRedirect(reverse("admin:tenants_campaign_changelist"))
        if campaign_queue(campaign):
            self.message_user(request, _("The campaign is being sent."), messages.SUCCESS)
        else:
            self.message_user(request, _("Only a draft campaign can be sent."), messages.WARNING)
        return HttpResponseRedirect(reverse("admin:tenants_campaign_change", args=[campaign.pk]))
