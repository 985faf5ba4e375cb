"""Settings pages (spec §2 "notifications" route, §4 account deletion, issue 3 items
6-8): e-mail, password, invisible mode, notification preferences, the remedies for
switched-off e-mail, the delete flow with its save-offers, reactivation, unsubscribe and
the data export. Views parse the input, call one service and render; the rules are in
apps.accounts.services.settings / deletion / export."""

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST

from apps.accounts.forms_settings import (
    DeleteConfirmForm,
    DeleteReasonForm,
    EmailChangeForm,
    InvisibleForm,
    PasswordChangeForm,
    errors_to_form,
)
from apps.accounts.models import NOTIFICATION_TYPES, DeleteReason, EmailDisabledReason, User
from apps.accounts.services import deletion, export
from apps.accounts.services import settings as account_settings
from apps.common.exceptions import ApplicationError

DELETE_SESSION_KEY = "account_delete"


def _settings_url(anchor: str = "") -> str:
    return reverse("notifications") + (f"#{anchor}" if anchor else "")


# The page's sections (their element ids) that show their own "saved" or error message
# inside, above the form the member just sent. A message at the top of the page would be
# off screen once the page lands on the section: the redirect goes to the message itself
# (#<section>-message, focusable), so the browser scrolls to it and focuses it (a screen
# reader reads it) with the section's heading in view (its scroll margin, _layout.scss).
MESSAGE_SECTIONS = ("email", "password", "invisible", "notification-preferences", "export")
SECTION_TAG = "section:"


def _section_message(request: HttpRequest, section: str, text: str, *, level: int = messages.SUCCESS) -> HttpResponse:
    """The message shown inside `section`, and the redirect to it."""
    messages.add_message(request, level, text, extra_tags=f"{SECTION_TAG}{section}")
    return redirect(_settings_url(f"{section}-message"))


def _split_messages(request: HttpRequest) -> tuple[list, dict[str, list]]:
    """The page's messages: those of no section (shown at the top) and those of each
    section (keyed with "_" for "-", for the template's lookups)."""
    page, sections = [], {section.replace("-", "_"): [] for section in MESSAGE_SECTIONS}
    for message in messages.get_messages(request):
        tags = (message.extra_tags or "").split()
        section = next((tag[len(SECTION_TAG) :] for tag in tags if tag.startswith(SECTION_TAG)), "")
        key = section.replace("-", "_")
        sections.get(key, page).append(message)
    return page, sections


def _settings_forms(user: User) -> dict:
    return {
        "email_form": EmailChangeForm(),
        "password_form": PasswordChangeForm(),
        "invisible_form": InvisibleForm(initial={"invisible": user.invisible}),
    }


def _settings_context(request: HttpRequest, forms: dict) -> dict:
    user = request.user
    page_messages, section_messages = _split_messages(request)
    return {
        **forms,
        "page_messages": page_messages,
        "section_messages": section_messages,
        "notification_rows": [
            {
                "name": name,
                "label": label,
                "email": name in user.email_notifications,
                "push": name in user.push_notifications,
            }
            for name, label in NOTIFICATION_TYPES
        ],
        "push_devices": user.push_subscriptions.count(),
        "email_disabled_reason": user.email_disabled_reason,
        "reasons": EmailDisabledReason,
        "days": settings.REACTIVATION_DAYS,
    }


def _email_action(request: HttpRequest, forms: dict) -> HttpResponse | int:
    form = forms["email_form"] = EmailChangeForm(request.POST)
    form.is_valid()
    try:
        address = account_settings.email_change_request(
            request=request,
            user=request.user,
            new_email=form.cleaned_data.get("new_email", ""),
            password=form.cleaned_data.get("password", ""),
        )
    except ApplicationError as error:
        errors_to_form(form, error)
        return error.status_code
    return _section_message(
        request,
        "email",
        _("We sent a link to %(email)s. Your e-mail address changes when you open that link.")
        % {"email": address.email},
    )


def _password_action(request: HttpRequest, forms: dict) -> HttpResponse | int:
    form = forms["password_form"] = PasswordChangeForm(request.POST)
    form.is_valid()
    try:
        account_settings.password_change(
            request=request,
            user=request.user,
            old_password=form.cleaned_data.get("old_password", ""),
            new_password1=form.cleaned_data.get("new_password1", ""),
            new_password2=form.cleaned_data.get("new_password2", ""),
        )
    except ApplicationError as error:
        errors_to_form(form, error)
        return error.status_code
    return _section_message(request, "password", _("Your password has been changed."))


def _invisible_action(request: HttpRequest, forms: dict) -> HttpResponse | int:
    form = forms["invisible_form"] = InvisibleForm(request.POST)
    form.is_valid()
    invisible = bool(form.cleaned_data.get("invisible"))
    account_settings.invisible_set(user=request.user, invisible=invisible)
    if invisible:
        return _section_message(request, "invisible", _("Invisible mode is on: you do not appear in search."))
    return _section_message(request, "invisible", _("Invisible mode is off: other members can find you in search."))


def _preferences_action(request: HttpRequest, forms: dict) -> HttpResponse | int:
    # One checkbox per type and channel; the service drops names it does not know.
    account_settings.notification_preferences_set(
        user=request.user, email_types=request.POST.getlist("email"), push_types=request.POST.getlist("push")
    )
    return _section_message(request, "notification-preferences", _("Your notification settings have been saved."))


def _email_resume_action(request: HttpRequest, forms: dict) -> HttpResponse | int:
    try:
        account_settings.email_notifications_resume(user=request.user)
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("We will send you e-mails again."))
    return redirect(_settings_url("email-notifications"))


def _email_check_action(request: HttpRequest, forms: dict) -> HttpResponse | int:
    try:
        account_settings.email_check_request(request=request, user=request.user)
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request,
            _("We sent an e-mail to %(email)s. Open the link in it to show that your address works.")
            % {"email": request.user.email},
        )
    return redirect(_settings_url("email-notifications"))


def _logout_all_action(request: HttpRequest, forms: dict) -> HttpResponse | int:
    from apps.accounts.services.auth import member_logout_everywhere

    member_logout_everywhere(request=request)
    messages.success(request, _("You have been logged out on all devices."))
    return redirect("login")


SETTINGS_ACTIONS = {
    "email": _email_action,
    "password": _password_action,
    "logout_all": _logout_all_action,
    "invisible": _invisible_action,
    "preferences": _preferences_action,
    "email_resume": _email_resume_action,
    "email_check": _email_check_action,
}


@sensitive_post_parameters("password", "old_password", "new_password1", "new_password2")
@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    """GET shows every section; a POST names its section in `action`. A section with
    errors re-renders the page with what the member typed and the messages next to
    the fields (with the error's status); a saved one redirects back to its section."""
    forms = _settings_forms(request.user)
    status = 200
    if request.method == "POST":
        action = SETTINGS_ACTIONS.get(request.POST.get("action", ""))
        if action is None:
            messages.error(request, _("An error has occurred."))
            return redirect(_settings_url())
        response = action(request, forms)
        if isinstance(response, HttpResponse):
            return response
        status = response
    return render(request, "accounts/settings/index.html", _settings_context(request, forms), status=status)


def _link_result(request: HttpRequest, *, ok: bool, message: str, status: int = 200) -> HttpResponse:
    return render(request, "accounts/settings/link_result.html", {"ok": ok, "message": message}, status=status)


@never_cache
def mail_change_do(request: HttpRequest) -> HttpResponse:
    """The link in the e-mail sent to the new address."""
    try:
        user = account_settings.email_change_confirm(key=request.GET.get("key", "")[:1000])
    except ApplicationError as error:
        return _link_result(request, ok=False, message=error.message, status=400)
    return _link_result(request, ok=True, message=_("Your e-mail address is now %(email)s.") % {"email": user.email})


@never_cache
def mail_check_do(request: HttpRequest) -> HttpResponse:
    """The link in the e-mail that checks a bounced address."""
    try:
        account_settings.email_check_confirm(key=request.GET.get("key", "")[:1000])
    except ApplicationError as error:
        return _link_result(request, ok=False, message=error.message, status=400)
    return _link_result(request, ok=True, message=_("Thank you: your e-mail address works. We send e-mails again."))


@csrf_exempt  # the signed token authenticates; mail clients' one-click POST (RFC 8058) has no cookie
@never_cache
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest) -> HttpResponse:
    """GET asks for one click (link scanners in mailboxes only GET); POST unsubscribes."""
    token = (request.POST.get("token") or request.GET.get("token") or "")[:1000]
    if request.method == "POST":
        try:
            member = account_settings.email_unsubscribe(token=token)
        except ApplicationError as error:
            return render(request, "accounts/settings/unsubscribe.html", {"error": error.message}, status=400)
        return render(request, "accounts/settings/unsubscribe.html", {"done": True, "kind": _kind_label(member)})
    try:
        member = account_settings.unsubscribe_member(token=token)
    except ApplicationError as error:
        return render(request, "accounts/settings/unsubscribe.html", {"error": error.message}, status=400)
    return render(request, "accounts/settings/unsubscribe.html", {"token": token, "kind": _kind_label(member)})


def _kind_label(member: User) -> str:
    return str(dict(NOTIFICATION_TYPES).get(getattr(member, "unsubscribe_kind", ""), ""))


# --- Deleting the account ------------------------------------------------------------


def _delete_state(request: HttpRequest) -> dict | None:
    state = request.session.get(DELETE_SESSION_KEY)
    return state if isinstance(state, dict) and state.get("reason") in DeleteReason.values else None


def _offers_context(request: HttpRequest, offers: list[str]) -> list[dict]:
    return [
        {
            "name": offer,
            "url": {
                deletion.OFFER_CHANGE_EMAIL: _settings_url("email"),
                deletion.OFFER_TRYOUT: deletion.tryout_url(request=request, user=request.user),
            }.get(offer),
        }
        for offer in offers
    ]


@sensitive_post_parameters("password")
@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request: HttpRequest) -> HttpResponse:
    """Step 1 (reason), 2 (save-offers fitting the reason), 3 (confirm with password).
    The reason travels in the session between the steps."""
    site = request.site
    state = _delete_state(request)
    action = request.POST.get("action", "") if request.method == "POST" else ""
    step = request.GET.get("step", "reason")
    reason_form = DeleteReasonForm(initial=state or {})
    confirm_form = DeleteConfirmForm()
    status = 200

    if action == "reason":
        reason_form = DeleteReasonForm(request.POST)
        reason_form.is_valid()
        try:
            state = deletion.delete_reason_validate(
                reason=reason_form.cleaned_data.get("reason", ""), remarks=reason_form.cleaned_data.get("remarks", "")
            )
        except ApplicationError as error:
            errors_to_form(reason_form, error)
            step, status = "reason", 400
        else:
            request.session[DELETE_SESSION_KEY] = state
            offers = deletion.delete_offers(request=request, user=request.user, reason=state["reason"])
            next_step = "offers" if offers else "confirm"
            return redirect(reverse("account-delete") + f"?step={next_step}")
    elif action == "privacy":
        account_settings.invisible_set(user=request.user, invisible=True)
        request.session.pop(DELETE_SESSION_KEY, None)
        return _section_message(
            request, "invisible", _("Invisible mode is on: you do not appear in search. Your account stays.")
        )
    elif action == "discount" and deletion.delete_discount_percent(site=site) > 0:
        # Lazy: accounts does not depend on payments at import time.
        from apps.payments.discounts import delete_discount_offer

        code = delete_discount_offer(
            site=site, user=request.user, percentage=deletion.delete_discount_percent(site=site)
        )
        request.session.pop(DELETE_SESSION_KEY, None)
        messages.success(
            request,
            _("Thank you for staying! Your %(percent)s%% discount code %(code)s is applied below.")
            % {"percent": code.value_percentage, "code": code.code},
        )
        return redirect(reverse("credits") + "?" + urlencode({"code": code.code}))
    elif action == "confirm":
        if state is None:
            return redirect("account-delete")
        confirm_form = DeleteConfirmForm(request.POST)
        confirm_form.is_valid()
        try:
            deletion.member_delete(
                request=request,
                user=request.user,
                reason=state["reason"],
                remarks=state.get("remarks", ""),
                password=confirm_form.cleaned_data.get("password", ""),
            )
        except ApplicationError as error:
            errors_to_form(confirm_form, error)
            step, status = "confirm", error.status_code
        else:
            return redirect("account-deleted")
    elif action:
        return redirect("account-delete")

    if step not in ("reason", "offers", "confirm") or (step != "reason" and state is None):
        return redirect("account-delete")
    offers = deletion.delete_offers(request=request, user=request.user, reason=state["reason"]) if state else []
    context = {
        "step": step,
        "reason_form": reason_form,
        "confirm_form": confirm_form,
        "state": state,
        "reason_label": DeleteReason(state["reason"]).label if state else "",
        "offers": _offers_context(request, offers),
        "discount": deletion.delete_discount_percent(site=site),
        "days": settings.REACTIVATION_DAYS,
    }
    return render(request, "accounts/settings/delete.html", context, status=status)


def account_deleted(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/account_deleted.html", {"days": settings.REACTIVATION_DAYS})


@never_cache
@require_http_methods(["GET", "POST"])
def reactivate(request: HttpRequest) -> HttpResponse:
    """GET checks the link and asks for one click (mailbox link scanners only GET, and
    must not undo a deletion or log in); POST reactivates and logs the member in."""
    if request.method == "GET" and "welcome" in request.GET and request.user.is_authenticated:
        return render(request, "accounts/settings/reactivate.html", {"welcome": True})
    token = (request.POST.get("token") or request.GET.get("token") or "")[:1000]
    try:
        if request.method == "POST":
            deletion.member_reactivate(request=request, token=token)
            return redirect(reverse("reactivate") + "?welcome=1")
        user, _payload = deletion.reactivation_check(token=token)
    except ApplicationError as error:
        context = {"error": error.message, "days": settings.REACTIVATION_DAYS}
        return render(request, "accounts/settings/reactivate.html", context, status=400)
    return render(request, "accounts/settings/reactivate.html", {"token": token, "member": user})


# --- Data export --------------------------------------------------------------------


@login_required
@require_POST
def account_export(request: HttpRequest) -> HttpResponse:
    try:
        archive = export.member_export(request=request, user=request.user)
    except ApplicationError as error:
        return _section_message(request, "export", error.message, level=messages.ERROR)
    filename = f"{slugify(request.site.name) or 'site'}-my-data-{timezone.localdate().isoformat()}.zip"
    response = FileResponse(archive, as_attachment=True, filename=filename, content_type="application/zip")
    response["Cache-Control"] = "private, no-store"
    return response
