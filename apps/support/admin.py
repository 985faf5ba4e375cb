"""The support console in the operators' admin: the audit trail (read-only, searchable,
CSV) and the member page with its actions (apps.support.console)."""

import csv
import json

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import StreamingHttpResponse
from django.urls import path
from django.utils.translation import gettext

from apps.support.models import AuditEntry

CSV_COLUMNS = ("created", "actor", "site_name", "site_id", "member_id", "action", "target", "reason", "before", "after")


class _Echo:
    def write(self, value: str) -> str:
        return value


def _csv_cell(value) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True) if isinstance(value, (dict, list)) else str(value)
    # Spreadsheets run cells that start with these as formulas (CSV injection).
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """Read-only: nobody adds, changes or deletes rows here (the database refuses too)."""

    list_display = ("created", "actor", "site_name", "member_id", "action", "target", "reason")
    list_filter = ("action", "site_name", ("created", admin.DateFieldListFilter))
    search_fields = ("actor", "action", "target", "reason", "site_name", "=member_id", "=site_id")
    date_hierarchy = "created"
    readonly_fields = [field.name for field in AuditEntry._meta.fields]
    list_per_page = 50
    show_full_result_count = False
    actions = None

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}_csv"
        return [path("csv/", self.admin_site.admin_view(self.csv_view), name=name), *super().get_urls()]

    def changelist_view(self, request, extra_context=None):
        query = request.GET.urlencode()
        extra = {"csv_query": f"?{query}" if query else "", **(extra_context or {})}
        return super().changelist_view(request, extra)

    def csv_view(self, request):
        """The rows the changelist shows with the same search and filters, as CSV."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        changelist = self.get_changelist_instance(request)
        rows = changelist.get_queryset(request).order_by("-created", "-pk").values_list(*CSV_COLUMNS)
        writer = csv.writer(_Echo())

        def lines():
            yield writer.writerow([gettext(str(AuditEntry._meta.get_field(name).verbose_name)) for name in CSV_COLUMNS])
            for row in rows.iterator(chunk_size=2000):
                yield writer.writerow([_csv_cell("" if value is None else value) for value in row])

        response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="audit-trail.csv"'
        return response
