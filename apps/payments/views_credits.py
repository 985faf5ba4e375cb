"""The member's buying screens (spec §2 credits, credits-id-paymentmethod,
credits-repeat-order; §4 "Payment"; issue 6 items 4 and 7).

- /credits: the site's packages in the member's payment currency with the active discount
  (time bonus, else welcome discount) or a code the member enters, and a Buy per package.
- /credits/<id>[/<method>]: the Checkout island: the package, the payment country's
  methods, a discount code, Pay (-> the gateway's checkout). The gateway sends the member
  back here with ?payment=<public id>, and the island shows the payment's state.
- /credits/repeat-order: one click to buy the last package again on the stored mandate.

The pages are thin: the payments service (apps.payments.services) does every write, and
apps.payments.api.payment answers the island's calls."""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from apps.common.exceptions import ApplicationError
from apps.common.locale import locale_tag
from apps.credits.services import credits_frozen_error
from apps.payments.api.payment import member_payment, payment_rate_limit, payment_response
from apps.payments.discounts import (
    TIME_BONUS_CODE,
    WELCOME_CODE,
    Discount,
    active_discount,
    discount_check,
    discount_check_rate_limit,
)
from apps.payments.formatting import money_format
from apps.payments.methods import method_label
from apps.payments.models import Mandate, Payment, PaymentStatus, Sequence
from apps.payments.selectors import (
    OfferedPackage,
    package_offered,
    packages_offered,
    payment_country,
    payment_methods,
)
from apps.payments.services import payment_charge_mandate
from apps.tenants.constants import MATCH_CHANCE_PERCENTAGE

DIRECT_DEBIT = "directdebit"
# Discounts the member gets without typing a code.
AUTOMATIC_CODES = frozenset({TIME_BONUS_CODE, WELCOME_CODE, ""})
PAYPAL = "paypal"


def _checkout_url(package_id: int, method: str | None = None, **query: str) -> str:
    args = [package_id, method] if method else [package_id]
    url = reverse("credits-id-paymentmethod", args=args)
    query = {key: value for key, value in query.items() if value}
    return f"{url}?{urlencode(query)}" if query else url


def _direct_debit_url(package_id: int) -> str:
    return f"{reverse('directdebit')}?{urlencode({'package': package_id})}"


def _methods(request: HttpRequest, country: str) -> list[str]:
    """The payment country's methods; SEPA direct debit only where the site offers its SMS page."""
    return [
        code for code in payment_methods(country=country) if code != DIRECT_DEBIT or request.site.direct_debit_enabled
    ]


def _mandate(user) -> Mandate | None:
    return Mandate.objects.filter(user=user, is_valid=True).order_by("-created", "-pk").first()


def _discount_props(discount: Discount | None) -> dict | None:
    if discount is None:
        return None
    return {
        "code": discount.code,
        "percentage": discount.percentage,
        "kind": discount.kind,
        "expires": discount.expires.isoformat() if discount.expires else None,
    }


def _package_props(package: OfferedPackage, *, href: str = "") -> dict:
    return {
        "id": package.id,
        "credits": package.credits,
        "unit": ngettext("credit", "credits", package.credits),
        "highlighted": package.highlighted,
        "currency": package.currency,
        "listAmount": package.list_amount,
        "amount": package.amount,
        "href": href,
    }


def _code_from(request: HttpRequest) -> str:
    return request.GET.get("code", "").strip().upper()[:40]


def _discounts(
    request: HttpRequest, *, country: str, code: str, currency: str | None = None, amount: int | None = None
) -> dict:
    """The member's active discount (time bonus, else welcome) and, for a code given in the
    address, its discount or its error for the field (rate limited like the API's checks)."""
    active = active_discount(request.user)
    found, error = None, ""
    if code:
        try:
            discount_check_rate_limit(request=request, user=request.user)
            found = discount_check(
                site=request.site, user=request.user, code=code, country=country, currency=currency, amount=amount
            )
        except ApplicationError as failure:
            fields = failure.extra.get("fields") or {}
            error = str((fields.get("code") or [failure.message])[0])
    return {"active": active, "code": found, "error": error}


def _discount_fields(code: str, discounts: dict) -> dict:
    return {
        "discount": _discount_props(discounts["active"]),
        "code": code,
        "codeDiscount": _discount_props(discounts["code"]),
        "codeError": discounts["error"],
    }


def _common_props(request: HttpRequest) -> dict:
    user = request.user
    return {
        "locale": locale_tag(request),  # the member's language and country ("en-GB")
        "balance": user.credits,
        "paidUser": user.paid_user,
        "frozen": user.credits_frozen,
        "urls": {
            "payment": reverse("api-payment"),
            "discount": reverse("api-discountcode"),
            "credits": reverse("credits"),
            "repeatOrder": reverse("credits-repeat-order"),
            "transactions": reverse("transactions-id"),
        },
    }


def checkout_strings() -> dict:
    """The Checkout island's text (registered in apps.payments.apps). `{code}`, `{percentage}`,
    `{price}`, `{method}` are filled in by the island."""
    return {
        # Packages and prices.
        "mostPopular": _("Most popular"),
        "perCredit": _("{price} per credit"),
        "buy": _("Buy"),
        "listPrice": _("Was {price}"),
        "youPay": _("You pay"),
        # xgettext:no-python-format
        "discountTimeBonus": _("Time bonus: {percentage}% off with code {code}"),
        # xgettext:no-python-format
        "discountWelcome": _("Welcome discount: {percentage}% off your first purchase"),
        # xgettext:no-python-format
        "discountCode": _("Discount code {code}: {percentage}% off"),
        "removeCode": _("Remove code"),
        # The discount code field.
        "codeLabel": _("Discount code"),
        "codePlaceholder": _("Enter your code"),
        "codeApply": _("Apply"),
        "codeChecking": _("Checking…"),
        # xgettext:no-python-format
        "codeApplied": _("Code {code} applied: {percentage}% off."),
        "codeEmpty": _("Enter a discount code."),
        # Checkout.
        "package": _("Your package"),
        "chooseMethod": _("Choose how to pay"),
        "pay": _("Pay {price}"),
        "paying": _("One moment…"),
        "directDebitNote": _("Pay by SEPA direct debit, confirmed with a code by SMS."),
        "secure": _("You pay on the secure page of our payment provider."),
        "choosePackage": _("Choose another package"),
        "frozen": credits_frozen_error().message,
        # The payment's states (spec §4 "Payment").
        "loading": _("Loading your payment…"),
        "pending": _("Processing your payment"),
        "pendingHelp": _("This can take a moment. Keep this page open: it updates by itself."),
        "slow": _(
            "We have not received the result of your payment yet. Your credits are added as soon as it "
            "arrives; you can also check your transactions."
        ),
        "checkAgain": _("Check again"),
        "completed": _("Payment completed"),
        "premium": _("You are now a premium member."),
        "premiumBadge": _("Premium"),
        "failed": _("Payment failed or has been cancelled."),
        "tryAgainWith": _("Try again with {method}"),
        "tryOther": _("Or choose another way to pay"),
        "tryAgain": _("Try again"),
        "payPal": _("Pay with PayPal"),
        "recurringFailed": _("Your repeat order could not be charged to your stored payment method."),
        "continue": _("Search members"),
        "transactions": _("Your transactions"),
        "close": _("Close"),
        "error": _("An error has occurred."),
    }


# --- /credits ------------------------------------------------------------------------


@never_cache
@login_required
@require_http_methods(["GET", "HEAD"])
def credits_page(request: HttpRequest) -> HttpResponse:
    user = request.user
    country = payment_country(request=request, user=user)
    code = _code_from(request)
    discounts = _discounts(request, country=country, code=code)
    active = discounts["active"]
    packages = packages_offered(
        site=request.site, country=country, discount_percentage=active.percentage if active else 0
    )
    methods = _methods(request, country)
    mandate = _mandate(user) if user.paid_user else None
    props = {
        **_common_props(request),
        "mode": "packages",
        "packages": [_package_props(package, href=_checkout_url(package.id)) for package in packages],
        **_discount_fields(code, discounts),
    }
    return render(
        request,
        "payments/credits.html",
        {
            "checkout_props": props,
            "packages": packages,
            "mandate": mandate,
            "mandate_label": method_label(mandate.method) if mandate else "",
            "frozen": user.credits_frozen,
            "frozen_message": credits_frozen_error().message,
            "direct_debit_url": reverse("directdebit") if DIRECT_DEBIT in methods else "",
            "transactions_url": reverse("transactions-id"),
            "match_chance": MATCH_CHANCE_PERCENTAGE,
        },
    )


# --- /credits/<id>[/<method>] --------------------------------------------------------


def _payment_package(payment: Payment) -> dict:
    """The package as this payment bought it (prices may have changed since)."""
    return {
        "id": payment.package_id,
        "credits": payment.credits,
        "unit": ngettext("credit", "credits", payment.credits),
        "highlighted": False,
        "currency": payment.currency,
        "listAmount": payment.list_amount,
        "amount": payment.amount,
        "href": "",
    }


@never_cache
@login_required
@require_http_methods(["GET", "HEAD"])
def checkout_page(request: HttpRequest, id: int, paymentmethod: str | None = None) -> HttpResponse:
    user = request.user
    country = payment_country(request=request, user=user)
    methods = _methods(request, country)
    payment = member_payment(user=user, public_id=request.GET.get("payment", "").strip())
    if payment is None:
        if paymentmethod is not None and paymentmethod not in methods:
            return redirect("credits-id-paymentmethod", id)
        if paymentmethod == DIRECT_DEBIT:
            return redirect(_direct_debit_url(id))
    listed = package_offered(site=request.site, package_id=id, country=country)
    code = _code_from(request)
    if not code and payment is not None:
        # Trying again after a failed payment keeps the code the member typed for it.
        code = payment.discount_code if payment.discount_code not in AUTOMATIC_CODES else ""
    discounts = _discounts(
        request,
        country=country,
        code=code,
        currency=listed.currency if listed else None,
        amount=listed.list_amount if listed else None,
    )
    active = discounts["active"]
    package = package_offered(
        site=request.site, package_id=id, country=country, discount_percentage=active.percentage if active else 0
    )
    if package is None and payment is None:
        raise Http404
    paypal_offered = PAYPAL in methods
    props = {
        **_common_props(request),
        "mode": "checkout",
        "package": _payment_package(payment) if payment else _package_props(package),
        "packageOnSale": package is not None,
        **_discount_fields(code, discounts),
        "methods": [
            {
                "code": method,
                "label": method_label(method),
                "href": _direct_debit_url(id) if method == DIRECT_DEBIT else _checkout_url(id, method),
            }
            for method in methods
        ],
        "method": payment.method if payment else paymentmethod,
        "payment": payment_response(payment) if payment else None,
        "recurring": bool(payment and payment.sequence == Sequence.RECURRING),
        "paypalUrl": _checkout_url(id, PAYPAL) if paypal_offered else "",
        "membersUrl": reverse("members"),
    }
    if payment:
        title = _("Payment")
    else:
        count = props["package"]["credits"]
        title = ngettext("Buy %(count)s credit", "Buy %(count)s credits", count) % {"count": count}
    return render(request, "payments/checkout.html", {"checkout_props": props, "title": title})


# --- /credits/repeat-order -----------------------------------------------------------


def _last_package_id(user) -> int | None:
    return (
        Payment.objects.filter(user=user, status=PaymentStatus.PAID)
        .order_by("-paid_at", "-pk")
        .values_list("package_id", flat=True)
        .first()
    )


@never_cache
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def repeat_order_page(request: HttpRequest) -> HttpResponse:
    """The paid member's "Credits" link: the last package again on the stored mandate, in
    one click (POST). Without a mandate, the packages page."""
    user = request.user
    mandate = _mandate(user)
    if mandate is None:
        return redirect("credits")
    country = payment_country(request=request, user=user)
    discount = active_discount(user)
    packages = packages_offered(
        site=request.site, country=country, discount_percentage=discount.percentage if discount else 0
    )
    if not packages:
        return redirect("credits")
    if request.method == "POST":
        return _repeat_order(request, mandate=mandate, packages=packages)
    last_id = _last_package_id(user)
    chosen = next((package for package in packages if package.id == last_id), None)
    if chosen is None:
        chosen = next((package for package in packages if package.highlighted), packages[0])
    rows = [
        {
            "id": package.id,
            "credits": package.credits,
            "price": money_format(package.amount, package.currency),
            "list_price": money_format(package.list_amount, package.currency),
            "discounted": package.amount < package.list_amount,
            "chosen": package.id == chosen.id,
            "last": package.id == last_id,
        }
        for package in packages
    ]
    return render(
        request,
        "payments/repeat_order.html",
        {
            "mandate": mandate,
            "mandate_label": method_label(mandate.method),
            "rows": rows,
            "chosen": next(row for row in rows if row["chosen"]),
            "is_last": chosen.id == last_id,
            "frozen": user.credits_frozen,
            "frozen_message": credits_frozen_error().message,
            "transactions_url": reverse("transactions-id"),
        },
    )


def _repeat_order(request: HttpRequest, *, mandate: Mandate, packages: list[OfferedPackage]) -> HttpResponse:
    try:
        package_id = int(request.POST.get("package", ""))
    except ValueError:
        package_id = 0
    if package_id not in {package.id for package in packages}:
        messages.error(request, _("Please choose a package."))
        return redirect("credits-repeat-order")
    try:
        payment_rate_limit(request=request, user=request.user)
        payment = payment_charge_mandate(request=request, user=request.user, package_id=package_id, mandate=mandate)
    except ApplicationError as error:
        messages.error(request, error.message)
        return redirect("credits-repeat-order")
    return redirect(_checkout_url(payment.package_id, payment.method, payment=payment.public_id))
