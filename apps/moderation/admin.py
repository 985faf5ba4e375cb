"""The support queues in the operators' admin (public schema).

Photo moderation: /admin/moderation/photoreview/queue/ shows the oldest waiting photo
(across sites, or of one site with ?site=<id>), approve or reject it with a reason,
keyboard shortcuts (static/moderation/queue.js; plain forms work without it). The
changelist is the history of decisions, read-only.

Complaints: the changelist is the queue (unresolved first, oldest first, filters per
site and status); each complaint's page shows what it names and moves it open -> in
progress -> resolved with the action taken.

Permissions: view_<model> to see a queue and its photos and messages, change_<model> to
decide. The generic change forms stay read-only: every write goes through
apps.moderation.services, which writes the audit trail."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Case, IntegerField, Value, When
from django.http import FileResponse, Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from apps.accounts.forms_settings import errors_to_form
from apps.common.exceptions import ApplicationError
from apps.common.media import media_file_response, media_path_check
from apps.moderation.console import console_actions
from apps.moderation.forms import ComplaintActForm, ComplaintMoveForm, PhotoDecisionForm, VerificationDecisionForm
from apps.moderation.models import ComplaintCase, PhotoDecision, PhotoReview, VerificationReview
from apps.moderation.selectors import (
    QUEUE_STRIP,
    complaint_image_path,
    complaint_view,
    directory_entry_id,
    photo_queue,
    photo_queue_sites,
    photo_still_waiting,
    verification_compare,
    verification_photo_path,
    verification_queue,
)
from apps.moderation.services import (
    complaint_move,
    held_message_decide,
    photo_decide,
    verification_decide,
)
from apps.profiles.models import (
    ComplaintAction,
    ComplaintReason,
    ComplaintStatus,
    PhotoRejectionReason,
    PhotoStatus,
    ProfileStatus,
)
from apps.profiles.poses import pose_info
from apps.profiles.services.verification import selfie_storage
from apps.tenants.models import MemberDirectoryEntry

IMAGE_CACHE_CONTROL = "private, max-age=300"
# Stale rows (photos deleted with their member's account) the queue page drops at once.
PRUNE_LIMIT = 10


def _positive_int(value) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number < 2**63 else None


def _member_url(site_id: int, member_id: int | None) -> str:
    """The support console's member page (apps.support)."""
    entry_id = directory_entry_id(site_id=site_id, member_id=member_id)
    return reverse("admin:support_member_change", args=[entry_id]) if entry_id is not None else ""


class _QueueAdmin(admin.ModelAdmin):
    """Read-only in the generic admin pages; decisions through the queue's own views."""

    actions = None
    list_select_related = ("site",)
    show_full_result_count = False  # a count over every site's rows on each page

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # the generic form; deciding is can_decide

    def can_decide(self, request) -> bool:
        return request.user.has_perm(f"{self.opts.app_label}.change_{self.opts.model_name}")

    def _url_name(self, action: str) -> str:
        return f"{self.opts.app_label}_{self.opts.model_name}_{action}"

    def _url(self, action: str, *args) -> str:
        return reverse(f"{self.admin_site.name}:{self._url_name(action)}", args=args)

    def _check(self, request, *, change: bool) -> None:
        if not (self.can_decide(request) if change else self.has_view_permission(request)):
            raise PermissionDenied

    def _queue_urls(self, *own: tuple[str, object, str]) -> list:
        """The queue page, its decision and `own` (route, view, action) before the
        generic admin's pages, each behind the admin's login."""
        view = self.admin_site.admin_view
        routes = [("queue/", self.queue_view, "queue"), ("<int:review_id>/decide/", self.decide_view, "decide"), *own]
        return [path(route, view(func), name=self._url_name(action)) for route, func, action in routes] + list(
            super().get_urls()
        )


@admin.register(PhotoReview)
class PhotoReviewAdmin(_QueueAdmin):
    list_display = (
        "thumbnail",
        "created",
        "site",
        "member_name",
        "photo_id",
        "decision",
        "reason",
        "decided_by_name",
        "decided_at",
    )
    list_filter = ("decision", ("site", admin.RelatedOnlyFieldListFilter), "reason")
    search_fields = ("member_name", "=photo_id", "=member_id", "decided_by_name")
    readonly_fields = [field.name for field in PhotoReview._meta.fields]

    def get_urls(self):
        return self._queue_urls(("<int:review_id>/image/<str:size>/", self.image_view, "image"))

    @admin.display(description=_("photo"))
    def thumbnail(self, obj: PhotoReview) -> str:
        """The photo's small rendition, from the operators' host itself (image_view), so
        the admin's CSP (img-src 'self') lets it show whatever the photo's state."""
        alt = gettext("Photo %(photo)s of %(member)s") % {"photo": obj.photo_id, "member": obj.member_name or "-"}
        return format_html(
            '<img src="{}" alt="{}" width="64" height="64" loading="lazy" class="photo-review-thumb" '
            'data-testid="photo-review-thumb">',
            self._url("image", obj.pk, "thumb"),
            alt,
        )

    def changelist_view(self, request, extra_context=None):
        extra = {
            "queue_url": self._url("queue"),
            "title": gettext("Decided and waiting photos"),
            **(extra_context or {}),
        }
        return super().changelist_view(request, extra)

    # --- The queue --------------------------------------------------------------------

    def _queue_url(self, *, site_id: int | None = None, item: int | None = None) -> str:
        query = {key: value for key, value in (("site", site_id), ("item", item)) if value}
        return self._url("queue") + (f"?{urlencode(query)}" if query else "")

    def queue_view(self, request):
        self._check(request, change=False)
        return self._queue_page(request, site_id=_positive_int(request.GET.get("site")))

    def _queue_page(self, request, *, site_id: int | None, form=None, status: int = 200, item_id: int | None = None):
        item_id = item_id or _positive_int(request.GET.get("item"))
        for _attempt in range(PRUNE_LIMIT):
            items = list(photo_queue(site_id=site_id)[:QUEUE_STRIP])
            current = next((review for review in items if review.pk == item_id), None)
            if current is None and item_id:
                current = photo_queue(site_id=site_id).filter(pk=item_id).first()
            current = current or (items[0] if items else None)
            if current is None or photo_still_waiting(current):
                break
            current.delete()  # the member's photo is gone: so is its place in the queue
        else:
            # More gone photos in a row than one page prunes (a bulk deletion): the page
            # shows what is left of the strip, and the next one goes on pruning.
            current = None
            items = [review for review in items if review.pk is not None]
        position = next((index for index, review in enumerate(items) if current and review.pk == current.pk), None)
        previous_item = items[position - 1] if position else None
        next_item = items[position + 1] if position is not None and position + 1 < len(items) else None
        sites = photo_queue_sites()
        waiting = {row["site_id"]: row["count"] for row in sites}
        total = waiting.get(site_id, 0) if site_id else sum(waiting.values())
        site_name = next((row["site__name"] for row in sites if row["site_id"] == site_id), "")
        if current is not None and form is None:
            form = PhotoDecisionForm(initial={"next": next_item.pk if next_item else None, "site": site_id})
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Photo moderation"),
            "opts": self.opts,
            "current": current,
            "items": items,
            "total": total,
            "position": (position or 0) + 1,
            "previous_url": self._queue_url(site_id=site_id, item=previous_item.pk) if previous_item else "",
            "next_url": self._queue_url(site_id=site_id, item=next_item.pk) if next_item else "",
            "sites": sites,
            "site_id": site_id,
            "site_name": site_name,
            "form": form,
            "reasons": list(enumerate(PhotoRejectionReason.choices, start=1)),
            "can_decide": self.can_decide(request),
            "queue_url": self._url("queue"),
            "history_url": self._url("changelist"),
        }
        if current is not None:
            context.update(
                {
                    "decide_url": self._url("decide", current.pk),
                    "image_url": self._url("image", current.pk, "full"),
                    "member_url": _member_url(current.site_id, current.member_id),
                    "age": timezone.now() - current.created,
                }
            )
        context["strip"] = [
            {
                "review": review,
                "url": self._queue_url(site_id=site_id, item=review.pk),
                "thumb": self._url("image", review.pk, "thumb"),
            }
            for review in items
        ]
        return TemplateResponse(request, "admin/moderation/photoreview/queue.html", context, status=status)

    def decide_view(self, request, review_id: int):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        self._check(request, change=True)
        form = PhotoDecisionForm(request.POST)
        site_id = _positive_int(request.POST.get("site"))
        if not form.is_valid():
            if not PhotoReview.objects.filter(pk=review_id).exists():
                raise Http404
            return self._queue_page(request, site_id=site_id, form=form, status=400, item_id=review_id)
        data = form.cleaned_data
        try:
            decided = photo_decide(
                review_id=review_id,
                actor=request.user,
                decision=data["decision"],
                reason=data["reason"],
                note=data["note"],
            )
        except ApplicationError as error:
            if error.status_code == 404:
                raise Http404(error.message) from error
            if error.status_code == 409:
                self.message_user(request, error.message, messages.WARNING)
                return HttpResponseRedirect(self._queue_url(site_id=data["site"]))
            errors_to_form(form, error)
            return self._queue_page(request, site_id=site_id, form=form, status=error.status_code, item_id=review_id)
        if decided is None:
            self.message_user(request, gettext("The member deleted this photo; it left the queue."), messages.WARNING)
        elif decided.decision == PhotoDecision.APPROVED:
            self.message_user(request, gettext("Photo %(id)s approved.") % {"id": decided.photo_id}, messages.SUCCESS)
        else:
            self.message_user(
                request,
                gettext("Photo %(id)s rejected: %(reason)s.")
                % {"id": decided.photo_id, "reason": decided.get_reason_display()},
                messages.SUCCESS,
            )
        following = data["next"]
        if following and not photo_queue(site_id=data["site"]).filter(pk=following).exists():
            following = None
        return HttpResponseRedirect(self._queue_url(site_id=data["site"], item=following))

    def image_view(self, request, review_id: int, size: str):
        """The photo of a queue row for staff, whatever its state: the path is the row's,
        never the request's, and must lie in the row's site's photos."""
        self._check(request, change=False)
        review = PhotoReview.objects.select_related("site").filter(pk=review_id).first()
        if review is None or size not in ("thumb", "full"):
            raise Http404
        path_name = review.thumb if size == "thumb" else review.image
        media_path_check(path_name, "photos", schema=review.site.schema_name)
        return media_file_response(path_name, cache_control=IMAGE_CACHE_CONTROL)


@admin.register(ComplaintCase)
class ComplaintCaseAdmin(_QueueAdmin):
    list_display = ("handle_link", "site", "reason", "status", "member_name", "assignee_name", "action", "created")
    list_display_links = None
    list_filter = ("status", ("site", admin.RelatedOnlyFieldListFilter), "reason", "action")
    search_fields = ("member_name", "assignee_name", "=complaint_id", "=member_id")
    readonly_fields = [field.name for field in ComplaintCase._meta.fields]

    def get_ordering(self, request):
        # Unresolved first (open, then in progress), each oldest first.
        rank = Case(
            When(status=ComplaintStatus.OPEN, then=Value(0)),
            When(status=ComplaintStatus.IN_PROGRESS, then=Value(1)),
            default=Value(2),
            output_field=IntegerField(),
        )
        return [rank.asc(), "created", "pk"]

    @admin.display(description=_("complaint"), ordering="complaint_id")
    def handle_link(self, obj: ComplaintCase) -> str:
        return format_html(
            '<a href="{}" class="complaint-link" data-testid="complaint-open">{}</a>',
            self._url("handle", obj.pk),
            gettext("Complaint %(id)s") % {"id": obj.complaint_id},
        )

    def changelist_view(self, request, extra_context=None):
        return super().changelist_view(request, {"title": gettext("Complaints queue"), **(extra_context or {})})

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<int:case_id>/handle/", view(self.handle_view), name=self._url_name("handle")),
            path("<int:case_id>/move/", view(self.move_view), name=self._url_name("move")),
            path("<int:case_id>/act/<slug:action>/", view(self.act_view), name=self._url_name("act")),
            path("<int:case_id>/held/<slug:decision>/", view(self.held_view), name=self._url_name("held")),
            path("<int:case_id>/image/<str:kind>/", view(self.image_view), name=self._url_name("image")),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        case_id = _positive_int(object_id)
        if case_id is None:
            raise Http404
        return HttpResponseRedirect(self._url("handle", case_id))

    def _case(self, request, case_id: int, *, change: bool) -> ComplaintCase:
        self._check(request, change=change)
        case = ComplaintCase.objects.select_related("site").filter(pk=case_id).first()
        if case is None:
            raise Http404
        return case

    def may_act(self, request) -> bool:
        """The support console's actions on the member, from the complaint's page: deciding
        complaints and acting on members (support.member_act) both."""
        return self.can_decide(request) and request.user.has_perm("support.member_act")

    def _act_context(self, request, case: ComplaintCase, view, act_form, act_action: str) -> dict:
        """The actions offered on the complaint's page, each with its form (the one that
        failed keeps what was typed and its errors)."""
        entry_id = directory_entry_id(site_id=case.site_id, member_id=case.member_id)
        # A refused action no longer offered (the complaint was resolved meanwhile) says why at the top.
        unshown = [
            str(error) for errors in (act_form.errors.values() if act_form is not None else []) for error in errors
        ]
        if not self.may_act(request) or entry_id is None or case.status == ComplaintStatus.RESOLVED:
            return {"act_forms": [], "act_errors": unshown}
        entry = MemberDirectoryEntry.objects.select_related("site").get(pk=entry_id)
        offered = []
        if view.photo is not None and view.photo.status != PhotoStatus.REJECTED:
            offered.append(("photo_hide", gettext("Hide the reported photo")))
        if view.profile is not None and view.profile.status != ProfileStatus.DISABLED:
            offered.append(("profile_disable", gettext("Disable the profile (hidden from other members)")))
        offered.append(("erase", gettext("Erase the account now")))
        if any(action == act_action for action, _label in offered):
            unshown = []
        return {
            "act_errors": unshown,
            "act_forms": [
                {
                    "action": action,
                    "label": label,
                    "url": self._url("act", case.pk, action),
                    "form": act_form if action == act_action and act_form is not None else ComplaintActForm(),
                }
                for action, label in offered
            ],
            "export_made": console_actions().export_made(entry=entry),
            "export_url": reverse("admin:support_member_act", args=[entry_id, "export"]),
        }

    def _handle_page(self, request, case: ComplaintCase, *, form=None, status: int = 200, act_form=None, act_action=""):
        view = complaint_view(case)
        context = {
            **self._act_context(request, case, view, act_form, act_action),
            **self.admin_site.each_context(request),
            "title": gettext("Complaint %(id)s") % {"id": case.complaint_id},
            "opts": self.opts,
            "case": case,
            "view": view,
            "form": form or ComplaintMoveForm(initial={"action": case.action, "note": ""}),
            "can_decide": self.can_decide(request),
            "statuses": ComplaintStatus,
            "actions": ComplaintAction.choices,
            "move_url": self._url("move", case.pk),
            "changelist_url": self._url("changelist"),
            "member_url": _member_url(case.site_id, case.member_id),
            "reporter_url": _member_url(case.site_id, case.reporter_id),
            "photo_url": self._url("image", case.pk, "photo") if view.photo is not None else "",
            "profile_photo_url": (
                self._url("image", case.pk, "profile")
                if view.profile is not None and view.profile.main_photo_id
                else ""
            ),
            "mine": case.assignee_id == request.user.pk,
            # A first message the site held for review: deliver it or reject it (credits back).
            "held_urls": (
                {"deliver": self._url("held", case.pk, "deliver"), "reject": self._url("held", case.pk, "reject")}
                if case.reason == ComplaintReason.HELD_MESSAGE
                and case.status != ComplaintStatus.RESOLVED
                and self.can_decide(request)
                else None
            ),
        }
        return TemplateResponse(request, "admin/moderation/complaintcase/handle.html", context, status=status)

    def handle_view(self, request, case_id: int):
        return self._handle_page(request, self._case(request, case_id, change=False))

    def move_view(self, request, case_id: int):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = self._case(request, case_id, change=True)
        form = ComplaintMoveForm(request.POST)
        if not form.is_valid():
            return self._handle_page(request, case, form=form, status=400)
        data = form.cleaned_data
        try:
            case = complaint_move(
                case_id=case.pk, actor=request.user, to=data["to"], action=data["action"], note=data["note"]
            )
        except ApplicationError as error:
            if error.status_code == 404:
                raise Http404(error.message) from error
            errors_to_form(form, error)
            return self._handle_page(request, case, form=form, status=error.status_code)
        self.message_user(
            request,
            gettext("Complaint %(id)s is now %(status)s.")
            % {"id": case.complaint_id, "status": case.get_status_display().lower()},
            messages.SUCCESS,
        )
        if case.status == ComplaintStatus.RESOLVED:
            following = (
                ComplaintCase.objects.filter(status=ComplaintStatus.OPEN)
                .order_by("created", "pk")
                .values_list("pk", flat=True)
                .first()
            )
            target = self._url("handle", following) if following else self._url("changelist")
            return HttpResponseRedirect(target)
        return HttpResponseRedirect(self._url("handle", case.pk))

    def held_view(self, request, case_id: int, decision: str):
        """Deliver or reject a held first message (apps.moderation.services.held_message_decide)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if decision not in ("deliver", "reject"):
            raise Http404
        case = self._case(request, case_id, change=True)
        form = ComplaintMoveForm({"to": ComplaintStatus.RESOLVED, "note": request.POST.get("note", "")})
        if not form.is_valid():
            return self._handle_page(request, case, form=form, status=400)
        try:
            case = held_message_decide(
                case_id=case.pk, actor=request.user, deliver=decision == "deliver", note=form.cleaned_data["note"]
            )
        except ApplicationError as error:
            if error.code == "not_found":
                raise Http404(error.message) from error
            form.add_error(None, error.message)
            return self._handle_page(request, case, form=form, status=error.status_code)
        return self._resolved(request, case)

    def _resolved(self, request, case):
        """Back to the complaint's page, saying what was done and that it is resolved."""
        self.message_user(
            request,
            gettext("Done: %(action)s. Complaint %(id)s is resolved.")
            % {"action": case.get_action_display().lower(), "id": case.complaint_id},
            messages.SUCCESS,
        )
        return HttpResponseRedirect(self._url("handle", case.pk))

    def act_view(self, request, case_id: int, action: str):
        """Hide the reported photo, disable the profile or erase the account from the
        complaint's page (apps.support.services.complaint_act): the complaint is
        resolved with that action, the reason its note; both audited."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if action not in console_actions().member_actions:
            raise Http404
        case = self._case(request, case_id, change=True)
        if not self.may_act(request):
            raise PermissionDenied
        form = ComplaintActForm(request.POST)
        if not form.is_valid():
            return self._handle_page(request, case, status=400, act_form=form, act_action=action)
        try:
            case = console_actions().complaint_act(
                case_id=case.pk, actor=request.user, action=action, reason=form.cleaned_data["reason"]
            )
        except ApplicationError as error:
            if error.code == "not_found":
                raise Http404(error.message) from error
            form.add_error(None, error.message)
            return self._handle_page(
                request,
                case,
                status=error.status_code if error.status_code != 404 else 409,
                act_form=form,
                act_action=action,
            )
        return self._resolved(request, case)

    def image_view(self, request, case_id: int, kind: str):
        """The photo a complaint names, or the complained-about profile's main photo."""
        case = self._case(request, case_id, change=False)
        if kind not in ("photo", "profile"):
            raise Http404
        path_name = complaint_image_path(case, kind=kind)
        if not path_name:
            raise Http404
        media_path_check(path_name, "photos", schema=case.site.schema_name)
        return media_file_response(path_name, cache_control=IMAGE_CACHE_CONTROL)


@admin.register(VerificationReview)
class VerificationReviewAdmin(_QueueAdmin):
    """Verified photos: /admin/moderation/verificationreview/queue/ shows the oldest
    waiting selfie beside the pose asked for and the member's approved photos; support
    verifies the member or not, with a reason. The changelist is the history. The
    selfie is served only here, to staff with the view permission, from the private
    storage; the member's photos only when they are that member's approved ones."""

    list_display = ("created", "site", "member_name", "pose", "decision", "reason", "decided_by_name", "decided_at")
    list_filter = ("decision", ("site", admin.RelatedOnlyFieldListFilter), "reason")
    search_fields = ("member_name", "=verification_id", "=member_id", "decided_by_name")
    readonly_fields = [field.name for field in VerificationReview._meta.fields]

    def get_urls(self):
        return self._queue_urls(
            ("<int:review_id>/selfie/", self.selfie_view, "selfie"),
            ("<int:review_id>/photo/<int:photo_id>/", self.photo_view, "photo"),
        )

    def changelist_view(self, request, extra_context=None):
        extra = {"title": gettext("Verification requests"), **(extra_context or {})}
        return super().changelist_view(request, extra)

    def queue_view(self, request):
        self._check(request, change=False)
        return self._queue_page(request, item_id=_positive_int(request.GET.get("item")))

    def _queue_page(self, request, *, item_id: int | None = None, form=None, status: int = 200):
        queue = verification_queue()
        compare = None
        for _attempt in range(PRUNE_LIMIT):
            current = (queue.filter(pk=item_id).first() if item_id else None) or queue.first()
            if current is None:
                break
            compare = verification_compare(current)
            if compare is not None:
                break
            current.delete()  # the request or its selfie is gone: so is its place in the queue
            item_id = None
        else:
            current = None
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Photo verification"),
            "opts": self.opts,
            "current": current,
            "total": queue.count(),
            "form": form or VerificationDecisionForm(),
            "reasons": VerificationReview._meta.get_field("reason").choices,
            "can_decide": self.can_decide(request),
            "history_url": self._url("changelist"),
        }
        if current is not None:
            context.update(
                {
                    "pose": pose_info(current.pose),
                    "selfie_url": self._url("selfie", current.pk),
                    "photos": [
                        {"id": photo["pk"], "url": self._url("photo", current.pk, photo["pk"])}
                        for photo in compare["photos"]
                    ],
                    "decide_url": self._url("decide", current.pk),
                    "member_url": _member_url(current.site_id, current.member_id),
                }
            )
        return TemplateResponse(request, "admin/moderation/verificationreview/queue.html", context, status=status)

    def decide_view(self, request, review_id: int):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        self._check(request, change=True)
        form = VerificationDecisionForm(request.POST)
        if not form.is_valid():
            if not VerificationReview.objects.filter(pk=review_id).exists():
                raise Http404
            return self._queue_page(request, item_id=review_id, form=form, status=400)
        data = form.cleaned_data
        try:
            decided = verification_decide(
                review_id=review_id, actor=request.user, decision=data["decision"], reason=data["reason"],
                note=data["note"],
            )  # fmt: skip
        except ApplicationError as error:
            if error.status_code == 404:
                raise Http404(error.message) from error
            if error.status_code == 409:
                self.message_user(request, error.message, messages.WARNING)
                return HttpResponseRedirect(self._url("queue"))
            errors_to_form(form, error)
            return self._queue_page(request, item_id=review_id, form=form, status=error.status_code)
        if decided is None:
            self.message_user(request, gettext("The request is gone; it left the queue."), messages.WARNING)
        elif decided.decision == PhotoDecision.APPROVED:
            self.message_user(
                request, gettext("%(name)s is verified.") % {"name": decided.member_name}, messages.SUCCESS
            )
        else:
            self.message_user(
                request,
                gettext("%(name)s is not verified: %(reason)s.")
                % {"name": decided.member_name, "reason": decided.get_reason_display()},
                messages.SUCCESS,
            )
        return HttpResponseRedirect(self._url("queue"))

    def _review(self, request, review_id: int) -> VerificationReview:
        self._check(request, change=False)
        review = VerificationReview.objects.select_related("site").filter(pk=review_id).first()
        if review is None:
            raise Http404
        return review

    def selfie_view(self, request, review_id: int):
        """The selfie, from the private storage, to staff only; never cached by others."""
        review = self._review(request, review_id)
        compare = verification_compare(review)
        if compare is None:
            raise Http404
        name = compare["selfie"]
        media_path_check(name, "verification", schema=review.site.schema_name)
        try:
            handle = selfie_storage().open(name, "rb")
        except (FileNotFoundError, OSError) as error:
            raise Http404 from error
        response = FileResponse(handle, content_type="image/jpeg")
        response["Cache-Control"] = "private, no-store"
        return response

    def photo_view(self, request, review_id: int, photo_id: int):
        """One of the member's approved photos, beside the selfie."""
        review = self._review(request, review_id)
        name = verification_photo_path(review, photo_id)
        if not name:
            raise Http404
        media_path_check(name, "photos", schema=review.site.schema_name)
        return media_file_response(name, cache_control=IMAGE_CACHE_CONTROL)
