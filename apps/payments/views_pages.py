"""The payments app's pages (spec §2 premium, pricing, transactions-id; issue 6 items 3,
9, 10): what premium gives and the packages to buy it with, the public price list, the
member's purchases and credit movements with an invoice-like view per purchase, and the
refund of unused credits from that view."""

from dataclasses import dataclass
from fractions import Fraction

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from apps.common.exceptions import ApplicationError
from apps.credits.models import CreditEntry, EntryKind
from apps.payments.discounts import active_discount
from apps.payments.formatting import money_format
from apps.payments.methods import method_label
from apps.payments.models import Payment, PaymentStatus
from apps.payments.selectors import OfferedPackage, packages_offered, payment_country
from apps.payments.services import refund_request, refundable
from apps.tenants.constants import MATCH_CHANCE_PERCENTAGE
from apps.tenants.models import Site
from apps.tenants.selectors import text_message_credits

# Spec §6 and §9: what a free member may do, and what premium adds.
FREE_PHOTOS = 3
PREMIUM_PHOTOS = 25
FREE_CONVERSATIONS = 2

PURCHASES_PER_PAGE = 10
ENTRIES_PER_PAGE = 25

# Payments that never reached the gateway are not shown to the member.
LISTED_STATUSES = [status for status in PaymentStatus.values if status != PaymentStatus.CREATED]
STATUS_STYLES = {
    PaymentStatus.OPEN: "warning",
    PaymentStatus.PENDING: "warning",
    PaymentStatus.PAID: "success",
    PaymentStatus.FAILED: "danger",
    PaymentStatus.CANCELED: "secondary",
    PaymentStatus.EXPIRED: "secondary",
}


@dataclass(frozen=True)
class PackageRow:
    id: int
    credits: int
    highlighted: bool
    price: str
    list_price: str
    discounted: bool
    discount_percentage: int
    per_credit: str
    buy_url: str


def _package_rows(packages: list[OfferedPackage]) -> list[PackageRow]:
    return [
        PackageRow(
            id=package.id,
            credits=package.credits,
            highlighted=package.highlighted,
            price=money_format(package.amount, package.currency),
            list_price=money_format(package.list_amount, package.currency),
            discounted=package.amount < package.list_amount,
            discount_percentage=package.discount_percentage,
            per_credit=money_format(-(-package.amount // package.credits), package.currency),
            buy_url=reverse("credits-id-paymentmethod", args=[package.id]),
        )
        for package in packages
    ]


def _member(request: HttpRequest):
    return request.user if request.user.is_authenticated else None


# --- /premium ----------------------------------------------------------------------


@never_cache
@login_required
@require_http_methods(["GET", "HEAD"])
def premium_page(request: HttpRequest) -> HttpResponse:
    user = request.user
    context = {
        "free_photos": FREE_PHOTOS,
        "premium_photos": PREMIUM_PHOTOS,
        "free_conversations": FREE_CONVERSATIONS,
        "match_chance": MATCH_CHANCE_PERCENTAGE,
        "packages": [],
        "discount": None,
    }
    if not user.paid_user:
        discount = active_discount(user)
        country = payment_country(request=request, user=user)
        context["discount"] = discount
        context["packages"] = _package_rows(
            packages_offered(
                site=request.site, country=country, discount_percentage=discount.percentage if discount else 0
            )
        )
    return render(request, "payments/premium.html", context)


# --- /pricing ----------------------------------------------------------------------


@require_http_methods(["GET", "HEAD"])
def pricing_page(request: HttpRequest) -> HttpResponse:
    site = request.site
    country = payment_country(request=request, user=_member(request))
    packages = packages_offered(site=site, country=country)
    message_credits = text_message_credits(site, country)
    # The lowest price of one message: bought in the package with the cheapest credits.
    cheapest = min(packages, key=lambda package: Fraction(package.amount, package.credits), default=None)
    message_from = (
        money_format(-(-cheapest.amount * message_credits // cheapest.credits), cheapest.currency) if cheapest else None
    )
    return render(
        request,
        "payments/pricing.html",
        {
            "packages": _package_rows(packages),
            "message_credits": message_credits,
            "message_from": message_from,
            "free_photos": FREE_PHOTOS,
            "premium_photos": PREMIUM_PHOTOS,
        },
    )


# --- /transactions -------------------------------------------------------------------


def _entry_row(entry: CreditEntry) -> dict:
    payment = entry.payment
    return {
        "kind": entry.get_kind_display(),
        "credits": entry.credits,
        "credits_display": f"+{entry.credits}" if entry.credits > 0 else f"−{-entry.credits}" if entry.credits else "0",
        "balance_after": entry.balance_after,
        "created": entry.created,
        "note": entry.note if entry.kind == EntryKind.ADJUSTMENT else "",
        "owed": entry.owed,
        "payment_url": reverse("transactions-id", args=[payment.public_id]) if payment else "",
        "payment_credits": payment.credits if payment else None,
    }


def _payment_row(payment: Payment) -> dict:
    return {
        "url": reverse("transactions-id", args=[payment.public_id]),
        "public_id": payment.public_id,
        "date": payment.paid_at or payment.created,
        "credits": payment.credits,
        "amount": money_format(payment.amount, payment.currency),
        "method": method_label(payment.method),
        "status": payment.get_status_display(),
        "status_style": STATUS_STYLES.get(payment.status, "secondary"),
        "refunded": money_format(payment.amount_refunded, payment.currency) if payment.amount_refunded else "",
    }


def _transactions_list(request: HttpRequest) -> HttpResponse:
    user = request.user
    payments = Paginator(
        Payment.objects.filter(user=user, status__in=LISTED_STATUSES).order_by("-created", "-pk"),
        PURCHASES_PER_PAGE,
    ).get_page(request.GET.get("page"))
    entries = Paginator(
        CreditEntry.objects.filter(user=user).select_related("payment").order_by("-created", "-pk"),
        ENTRIES_PER_PAGE,
    ).get_page(request.GET.get("moves"))
    return render(
        request,
        "payments/transactions.html",
        {
            "payments": payments,
            "payment_rows": [_payment_row(payment) for payment in payments],
            "entries": entries,
            "entry_rows": [_entry_row(entry) for entry in entries],
            "balance": user.credits,
        },
    )


def _own_payment(request: HttpRequest, id: str) -> Payment:
    """The member's own payment; another member's, or one of another site, is a 404."""
    payment = (
        Payment.objects.filter(user=request.user, public_id=id, status__in=LISTED_STATUSES)
        .prefetch_related("refunds")
        .first()
    )
    if payment is None:
        raise Http404
    return payment


def invoice_number(site: Site, payment: Payment) -> str:
    letters = "".join(char for char in site.name.upper() if "A" <= char <= "Z")[:3] or "INV"
    return f"{letters}-{site.pk}-{payment.pk:06d}"


def _refund_offer(payment: Payment) -> dict | None:
    offer = refundable(payment)
    if not offer:
        return None
    return {**offer, "amount_display": money_format(offer["amount"], offer["currency"])}


def _transaction_detail(request: HttpRequest, id: str) -> HttpResponse:
    payment = _own_payment(request, id)
    currency = payment.currency
    paid = payment.status == PaymentStatus.PAID
    refunds = [
        {
            "created": refund.created,
            "credits": refund.credits,
            "amount": money_format(refund.amount, currency),
            "status": refund.get_status_display(),
        }
        for refund in payment.refunds.all()
    ]
    return render(
        request,
        "payments/transactions_detail.html",
        {
            "payment": payment,
            "paid": paid,
            "invoice_number": invoice_number(request.site, payment) if paid else "",
            "date": payment.paid_at or payment.created,
            "list_price": money_format(payment.list_amount, currency),
            "discount": money_format(payment.list_amount - payment.amount, currency)
            if payment.amount < payment.list_amount
            else "",
            "amount": money_format(payment.amount, currency),
            "method": method_label(payment.method),
            "status_style": STATUS_STYLES.get(payment.status, "secondary"),
            "refunds": refunds,
            "charged_back": money_format(payment.amount_charged_back, currency) if payment.amount_charged_back else "",
            "refund_offer": _refund_offer(payment) if paid else None,
        },
    )


@never_cache
@login_required
@require_http_methods(["GET", "HEAD"])
def transactions_page(request: HttpRequest, id: str | None = None) -> HttpResponse:
    if id is None:
        return _transactions_list(request)
    return _transaction_detail(request, id)


@never_cache
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def transaction_refund(request: HttpRequest, id: str) -> HttpResponse:
    """Asks to confirm, then refunds the payment's unused credits (POST)."""
    payment = _own_payment(request, id)
    back = reverse("transactions-id", args=[payment.public_id])
    if request.method == "POST":
        # The service checks again under a lock and says why a refund is refused.
        try:
            refund = refund_request(payment=payment, requested_by="member")
        except ApplicationError as error:
            messages.error(request, error.message)
            return redirect(back)
        messages.success(
            request,
            ngettext(
                "Your refund of %(amount)s for %(credits)s unused credit has been requested. "
                "It goes back to the payment method you used.",
                "Your refund of %(amount)s for %(credits)s unused credits has been requested. "
                "It goes back to the payment method you used.",
                refund.credits,
            )
            % {"amount": money_format(refund.amount, payment.currency), "credits": refund.credits},
        )
        return redirect(back)
    offer = _refund_offer(payment)
    if offer is None:
        messages.error(request, _("This purchase can no longer be refunded."))
        return redirect(back)
    return render(request, "payments/transactions_refund.html", {"payment": payment, "offer": offer, "back": back})
