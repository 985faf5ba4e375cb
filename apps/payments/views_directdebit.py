"""The SMS direct debit pages (spec §2 directdebit, §5, §8; issue 6 item 8).

/directdebit?package=<id>      step 1: package, bank account, address, mobile, mandate
/directdebit/<id>/code         step 2: the code from the SMS (id = the member's request)
/directdebit/<id>/resend       "Send a new code" (POST)

The views parse the input, call apps.payments.directdebit and render; every rule and
message is there."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST

from apps.common.exceptions import ApplicationError
from apps.payments import directdebit
from apps.payments.forms_directdebit import CodeForm, DirectDebitForm
from apps.payments.models import SmsState
from apps.payments.selectors import payment_country

STEP1_FIELDS = ("account_holder", "iban", "street", "house_number", "postal_code", "city", "mobile")


def _int(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _errors_to_form(form, error: ApplicationError) -> None:
    """A service's field messages under the fields, anything else above the form."""
    if not hasattr(form, "cleaned_data"):  # an unbound form (e.g. the retry button's page)
        form.cleaned_data = {}
    fields = error.extra.get("fields") or {}
    for name, errors in fields.items():
        for message in errors:
            form.add_error(name if name in form.fields else None, message)
    if not fields:
        form.add_error(None, error.message)


def _base_context(request: HttpRequest) -> dict:
    credits_url = reverse("credits")
    return {"credits_url": credits_url, "company": request.site.company}


@never_cache
@login_required
@sensitive_post_parameters("iban", "mobile", "account_holder")
@require_http_methods(["GET", "HEAD", "POST"])
def directdebit_page(request: HttpRequest) -> HttpResponse:
    user = request.user
    context = _base_context(request)
    country = payment_country(request=request, user=user)
    if not directdebit.directdebit_available(site=request.site, country=country):
        return render(request, "payments/directdebit.html", {**context, "state": "unavailable"}, status=404)
    if user.direct_debit_blocked:
        return render(
            request,
            "payments/directdebit.html",
            {**context, "state": "blocked", "message": directdebit.MESSAGE_BLOCKED},
            status=403,
        )

    offers = directdebit.directdebit_packages(request=request, user=user)
    source = request.POST if request.method == "POST" else request.GET
    offer = next((item for item in offers if item.package.id == _int(source.get("package"))), None)
    if offer is None:
        # No package or one not on sale: let the member choose one.
        status = 200 if "package" not in source else 400
        return render(
            request, "payments/directdebit.html", {**context, "state": "choose", "offers": offers}, status=status
        )
    if directdebit.directdebit_limit_reached(user=user, amount=offer.amount):
        return render(
            request,
            "payments/directdebit.html",
            {**context, "state": "limit", "message": directdebit.MESSAGE_LIMIT, "offer": offer},
            status=403,
        )

    package_ids = [item.package.id for item in offers]
    status = 200
    if request.method == "POST":
        form = DirectDebitForm(request.POST, country=country, package_ids=package_ids)
        if form.is_valid():
            try:
                dd_request = directdebit.directdebit_request_create(
                    request=request,
                    user=user,
                    package_id=form.cleaned_data["package"],
                    **{name: form.cleaned_data[name] for name in STEP1_FIELDS},
                )
            except ApplicationError as error:
                if error.code in ("direct_debit_blocked", "direct_debit_limit"):
                    state = "blocked" if error.code == "direct_debit_blocked" else "limit"
                    return render(
                        request,
                        "payments/directdebit.html",
                        {**context, "state": state, "message": error.message, "offer": offer},
                        status=error.status_code,
                    )
                _errors_to_form(form, error)
                status = error.status_code
            else:
                return redirect("directdebit-code", request_id=dd_request.pk)
        else:
            status = 400
    else:
        form = DirectDebitForm(
            initial={"package": offer.package.id, **_details_from(request, request.GET.get("request"))},
            country=country,
            package_ids=package_ids,
        )
    return render(
        request,
        "payments/directdebit.html",
        {
            **context,
            "state": "form",
            "form": form,
            "offer": offer,
            "offers": offers,
            "mandate_text": directdebit.mandate_text(site=request.site, offer=offer),
            # The page opens at the first field to correct.
            "first_error": next((name for name in form.fields if form.is_bound and name in form.errors), ""),
        },
        status=status,
    )


def _details_from(request: HttpRequest, request_id) -> dict:
    """The details of a request for the code page's "Change my details" link."""
    request_id = _int(request_id)
    dd_request = directdebit.directdebit_request_for(user=request.user, request_id=request_id) if request_id else None
    if dd_request is None:
        return {}
    details = {name: getattr(dd_request, name) for name in STEP1_FIELDS}
    details["iban"] = directdebit.iban_formatted(dd_request.iban)
    details["mobile"] = directdebit.mobile_formatted(dd_request.mobile)
    return details


def _own_request(request: HttpRequest, request_id: int):
    dd_request = directdebit.directdebit_request_for(user=request.user, request_id=request_id)
    if dd_request is None:
        raise Http404
    return dd_request


def _code_context(request: HttpRequest, dd_request, form: CodeForm, **extra) -> dict:
    offer = directdebit.directdebit_offer(request=request, user=request.user, package_id=dd_request.package_id)
    return {
        **_base_context(request),
        "dd_request": dd_request,
        "form": form,
        "offer": offer,
        "state": directdebit.request_state(dd_request),
        "iban_masked": directdebit.iban_mask(dd_request.iban),
        "mobile_masked": directdebit.mobile_mask(dd_request.mobile),
        "valid_minutes": int(directdebit.CODE_VALID.total_seconds() // 60),
        "state_message": directdebit.STATE_MESSAGES.get(directdebit.request_state(dd_request), ""),
        # The provider refused the code's SMS or reported it undelivered: the code will not
        # come, so the page offers a new one at once instead of the code field.
        "sms_failed": dd_request.sms_state == SmsState.FAILED,
        "sms_failed_message": directdebit.MESSAGE_SMS_UNDELIVERED,
        **extra,
    }


@never_cache
@login_required
@sensitive_post_parameters("code")
@require_http_methods(["GET", "HEAD", "POST"])
def directdebit_code_page(request: HttpRequest, request_id: int) -> HttpResponse:
    dd_request = _own_request(request, request_id)
    if dd_request.payment_id:
        return redirect(directdebit.payment_status_url(dd_request.payment))
    status = 200
    explanation = ""
    form = CodeForm()
    if request.method == "POST":
        try:
            if request.POST.get("action") == "retry":
                payment = directdebit.directdebit_charge(request=request, user=request.user, dd_request=dd_request)
            else:
                form = CodeForm(request.POST)
                if not form.is_valid():
                    return render(
                        request, "payments/directdebit_code.html", _code_context(request, dd_request, form), status=400
                    )
                payment = directdebit.directdebit_confirm(
                    request=request, user=request.user, request_id=dd_request.pk, code=form.cleaned_data["code"]
                )
        except ApplicationError as error:
            dd_request.refresh_from_db()
            if dd_request.payment_id:
                return redirect(directdebit.payment_status_url(dd_request.payment))
            _errors_to_form(form, error)
            explanation = error.extra.get("explanation", "")
            status = error.status_code
        else:
            return redirect(directdebit.payment_status_url(payment))
    return render(
        request,
        "payments/directdebit_code.html",
        _code_context(request, dd_request, form, explanation=explanation),
        status=status,
    )


@never_cache
@login_required
@require_POST
def directdebit_resend(request: HttpRequest, request_id: int) -> HttpResponse:
    dd_request = _own_request(request, request_id)
    if dd_request.payment_id:
        return redirect(directdebit.payment_status_url(dd_request.payment))
    try:
        new = directdebit.directdebit_code_resend(request=request, user=request.user, dd_request=dd_request)
    except ApplicationError as error:
        form = CodeForm()
        _errors_to_form(form, error)
        return render(
            request,
            "payments/directdebit_code.html",
            _code_context(request, dd_request, form),
            status=error.status_code,
        )
    messages.success(
        request,
        _("We sent a new code to %(mobile)s.") % {"mobile": directdebit.mobile_mask(new.mobile)},
    )
    return redirect("directdebit-code", request_id=new.pk)
