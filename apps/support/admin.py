"""The support console in the operators' admin: the audit trail (read-only, searchable,
CSV) and the member page with its actions (apps.support.services)."""

import csv

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import (
    FileResponse,
    Http404,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
    StreamingHttpResponse,
)
from django.http.response import HttpResponseBase
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django_tenants.utils import tenant_context

from apps.common.exceptions import ApplicationError
from apps.common.media import media_file_response, media_path_check
from apps.common.spreadsheet import Echo, csv_cell
from apps.moderation.models import ComplaintCase
from apps.support import services
from apps.support.models import AuditEntry, Member
from apps.support.selectors import member_audit, member_of, member_overview, member_search
from apps.support.services import REASON_MAX_LENGTH, export_made, reason_clean

AUDIT_ROWS = 30
CSV_COLUMNS = ("created", "actor", "site_name", "site_id", "member_id", "action", "target", "reason", "before", "after")


class ReadOnlyAdmin(admin.ModelAdmin):
    """Support's lists of rows nobody adds, changes or deletes through the admin (the
    member pages act through forms of their own, each audited): 50 a page, no full count,
    no bulk actions."""

    list_per_page = 50
    show_full_result_count = False
    actions = None

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    """Read-only: nobody adds, changes or deletes rows here (the database refuses too)."""

    list_display = ("created", "actor", "site_name", "member_id", "action", "target", "reason")
    list_filter = ("action", "site_name", ("created", admin.DateFieldListFilter))
    search_fields = ("actor", "action", "target", "reason", "site_name", "=member_id", "=site_id")
    date_hierarchy = "created"
    readonly_fields = [field.name for field in AuditEntry._meta.fields]

    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}_csv"
        return [path("csv/", self.admin_site.admin_view(self.csv_view), name=name), *super().get_urls()]

    def csv_view(self, request):
        """The rows the changelist shows with the same search and filters, as CSV."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        changelist = self.get_changelist_instance(request)
        rows = changelist.get_queryset(request).order_by("-created", "-pk").values_list(*CSV_COLUMNS)
        writer = csv.writer(Echo())

        def lines():
            yield writer.writerow([gettext(str(AuditEntry._meta.get_field(name).verbose_name)) for name in CSV_COLUMNS])
            for row in rows.iterator(chunk_size=2000):
                yield writer.writerow([csv_cell("" if value is None else value) for value in row])

        response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="audit-trail.csv"'
        return response


# --- The member page -------------------------------------------------------------------


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("reason"),
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text=_("Kept in the audit trail with your name."),
    )

    def clean_reason(self) -> str:
        try:
            return reason_clean(self.cleaned_data["reason"])
        except ApplicationError as error:
            raise forms.ValidationError(error.message) from error


class CreditsForm(ReasonForm):
    credits = forms.IntegerField(
        label=_("credits"),
        min_value=-100_000,
        max_value=100_000,
        help_text=_("Positive adds credits, negative takes them."),
    )
    field_order = ["credits", "reason"]

    def clean_credits(self) -> int:
        credits = self.cleaned_data["credits"]
        if credits == 0:
            raise forms.ValidationError(_("Enter a number of credits other than 0."))
        return credits


class PaymentForm(ReasonForm):
    payment = forms.RegexField(regex=r"^[A-Za-z0-9_-]{1,40}$", widget=forms.HiddenInput)


class PhotoForm(ReasonForm):
    photo = forms.IntegerField(min_value=1, max_value=2**62, widget=forms.HiddenInput)


# action -> (form, permission it needs)
ACTIONS = {
    "activation": (ReasonForm, "support.member_act"),
    "password_reset": (ReasonForm, "support.member_act"),
    "profile_disable": (ReasonForm, "support.member_act"),
    "profile_enable": (ReasonForm, "support.member_act"),
    "photo_hide": (PhotoForm, "support.member_act"),
    "export": (ReasonForm, "support.member_act"),
    "erase": (ReasonForm, "support.member_act"),
    "credits": (CreditsForm, "support.money_act"),
    "unfreeze": (ReasonForm, "support.money_act"),
    "refund": (PaymentForm, "support.money_act"),
    "dd_block": (ReasonForm, "support.money_act"),
    "dd_unblock": (ReasonForm, "support.money_act"),
}


def _money(amount: int, currency: str) -> str:
    return f"{amount / 100:.2f} {currency}"


@admin.register(Member)
class MemberAdmin(ReadOnlyAdmin):
    """Support finds a member of any site by e-mail, name, member id or payment id, and
    works on one page per member, read and changed in the member's own site schema."""

    list_display = ("email", "name", "site", "member_id", "status", "updated")
    list_filter = ("status", ("site", admin.RelatedOnlyFieldListFilter))
    search_fields = ("email",)  # shows the search box; member_search does the work
    search_help_text = _("E-mail address, name, member id or payment id")
    list_select_related = ("site",)

    def get_search_results(self, request, queryset, search_term):
        return member_search(queryset, search_term), False

    def get_urls(self):
        view = self.admin_site.admin_view
        name = f"{self.opts.app_label}_{self.opts.model_name}"
        return [
            path("<int:object_id>/act/<slug:action>/", view(self.action_view), name=f"{name}_act"),
            path("<int:object_id>/photo/<int:photo_id>/", view(self.photo_view), name=f"{name}_photo"),
            *super().get_urls(),
        ]

    def _entry(self, request, object_id) -> Member:
        entry = Member.objects.select_related("site").filter(pk=object_id).first()
        if entry is None:
            raise Http404(gettext("This member could not be found."))
        if not self.has_view_permission(request, entry):
            raise PermissionDenied
        return entry

    def photo_view(self, request, object_id: int, photo_id: int):
        """A thumbnail of the member's photo for staff, whatever its state: the path is
        the stored photo's, never the request's, and must lie in the site's photos."""
        from apps.profiles.models import Photo

        entry = self._entry(request, object_id)
        with tenant_context(entry.site):
            thumb = (
                Photo.objects.filter(pk=photo_id, profile__user_id=entry.member_id)
                .values_list("thumb", flat=True)
                .first()
            )
        if not thumb:
            raise Http404(gettext("This photo could not be found."))
        media_path_check(thumb, "photos", schema=entry.site.schema_name)
        return media_file_response(thumb, cache_control="private, max-age=300")

    def change_view(self, request, object_id, form_url="", extra_context=None):
        try:
            object_id = int(object_id)
        except (TypeError, ValueError):
            raise Http404(gettext("This member could not be found.")) from None
        return self._page(request, self._entry(request, object_id))

    def _page(self, request, entry: Member, *, forms_bound: dict | None = None, status: int = 200):
        from apps.payments.services import refundable

        with tenant_context(entry.site):
            member = member_of(entry)
            if member is None:
                raise Http404(gettext("The member no longer exists on the site."))
            overview = member_overview(entry, member)
            for photo in overview["photos"]:
                photo.staff_url = reverse("admin:support_member_photo", args=[entry.pk, photo.pk])
            cases = dict(
                ComplaintCase.objects.filter(
                    site_id=entry.site_id,
                    complaint_id__in=[c.pk for c in overview["complaints_about"] + overview["complaints_by"]],
                ).values_list("complaint_id", "pk")
            )
            for complaint in overview["complaints_about"] + overview["complaints_by"]:
                case_id = cases.get(complaint.pk)
                complaint.case_url = reverse("admin:moderation_complaintcase_handle", args=[case_id]) if case_id else ""
            payments = []
            for payment in overview["payments"]:
                offer = refundable(payment, user=member)
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
                        "refundable": offer,
                        "refundable_amount": _money(offer["amount"], offer["currency"]) if offer else "",
                    }
                )
        bound = forms_bound or {}
        context = {
            **self.admin_site.each_context(request),
            **overview,
            "title": entry.name,
            "opts": self.opts,
            "entry": entry,
            "payments": payments,
            "ledger_differs": overview["ledger"] != member.credits,
            "forms": {name: bound.get(name) or form() for name, (form, _perm) in ACTIONS.items()},
            "may_act": request.user.has_perm("support.member_act"),
            "may_pay": request.user.has_perm("support.money_act"),
            "export_made": export_made(entry=entry),
            "audit": member_audit(entry)[:AUDIT_ROWS],
            "audit_url": reverse("admin:support_auditentry_changelist")
            + f"?site_id={entry.site_id}&member_id={entry.member_id}",
            "act_url_name": f"{self.admin_site.name}:support_member_act",
            "media": self.media,
        }
        return TemplateResponse(request, "admin/support/member/member.html", context, status=status)

    def action_view(self, request, object_id: int, action: str):
        if action not in ACTIONS:
            raise Http404(gettext("This action does not exist."))
        form_class, permission = ACTIONS[action]
        entry = self._entry(request, object_id)
        if not request.user.has_perm(permission):
            raise PermissionDenied
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        form = form_class(request.POST)
        if not form.is_valid():
            return self._page(request, entry, forms_bound={action: form}, status=400)
        data = form.cleaned_data
        try:
            result = self._act(request, entry, action, data)
        except ApplicationError as error:
            if error.status_code == 404:
                raise Http404(error.message) from error
            form.add_error(None, error.message)
            return self._page(request, entry, forms_bound={action: form}, status=400)
        if isinstance(result, HttpResponseBase):
            return result
        self.message_user(request, result, messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:support_member_change", args=[entry.pk]))

    def _act(self, request, entry: Member, action: str, data: dict):
        actor, reason = request.user, data["reason"]
        name = {"name": entry.name}
        if action == "activation":
            services.activation_resend(actor=actor, entry=entry, reason=reason)
            return gettext("The activation e-mail was sent to %(name)s again.") % name
        if action == "password_reset":
            services.password_reset_force(actor=actor, entry=entry, reason=reason)
            return gettext("%(name)s was logged out everywhere and got a link to choose a new password.") % name
        if action in ("profile_disable", "profile_enable"):
            enabled = action == "profile_enable"
            services.profile_enabled_set(actor=actor, entry=entry, enabled=enabled, reason=reason)
            return (
                gettext("The profile of %(name)s is visible again.")
                if enabled
                else gettext("The profile of %(name)s is hidden from other members.")
            ) % name
        if action == "photo_hide":
            services.photo_hide(actor=actor, entry=entry, photo_id=data["photo"], reason=reason)
            return gettext("The photo is hidden from other members.")
        if action == "export":
            archive = services.member_export_for_support(actor=actor, entry=entry, reason=reason)
            response = FileResponse(
                archive,
                as_attachment=True,
                filename=f"member-{entry.site_id}-{entry.member_id}.zip",
                content_type="application/zip",
            )
            return response
        if action == "erase":
            services.member_erase_now(actor=actor, entry=entry, reason=reason)
            self.message_user(request, gettext("The account of %(name)s was erased.") % name, messages.SUCCESS)
            return HttpResponseRedirect(reverse("admin:support_member_changelist"))
        if action == "credits":
            balance = services.credits_change(actor=actor, entry=entry, credits=data["credits"], reason=reason)
            return gettext("%(credits)+d credits for %(name)s. Balance: %(balance)d.") % {
                **name,
                "credits": data["credits"],
                "balance": balance,
            }
        if action == "unfreeze":
            owed = services.credits_unfreeze(actor=actor, entry=entry, reason=reason)
            return gettext("Spending is allowed again for %(name)s; %(owed)d owed credits cleared.") % {
                **name,
                "owed": owed,
            }
        if action == "refund":
            refund, payment = services.payment_refund(
                actor=actor, entry=entry, payment_id=data["payment"], reason=reason
            )
            return gettext("Refund of %(amount)s (%(credits)d credits) requested for payment %(payment)s.") % {
                "amount": _money(refund.amount, payment.currency),
                "credits": refund.credits,
                "payment": payment.public_id,
            }
        blocked = action == "dd_block"
        services.direct_debit_block_set(actor=actor, entry=entry, blocked=blocked, reason=reason)
        return (
            gettext("%(name)s is blocked for direct debit payments.")
            if blocked
            else gettext("%(name)s may pay by direct debit again.")
        ) % name
