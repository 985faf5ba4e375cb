"""Discounts (spec §3 "Discount code", §4 "Welcome time bonus", §9): a site's discount
codes, the welcome time bonus (TIMEBONUS25) and the welcome discount (WELCOME25).

- A site's codes live in the public schema (payments.DiscountCode) and never match on
  another site. Codes are matched case-insensitively (stored upper-case).
- Each member uses each code once (payments.DiscountCodeUse, recorded when a payment is
  paid); TIMEBONUS25 and WELCOME25 count the same way.
- The time bonus: a logged-in, non-paying member whose signup is under 4 hours old and
  who has not used TIMEBONUS25 gets 25 % until signup + 4 h.
- The welcome discount: a non-paying member gets 25 % on the first purchase, until
  WELCOME_DISCOUNT_DAYS after signup, once.
- The active discount is the time bonus when present, otherwise the welcome discount.

Reads only, except discount_use_record (called by payment_sync when a payment is paid).
"""

import math
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from allauth.core.internal import ratelimit
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.common import locale
from apps.common.exceptions import ApplicationError
from apps.payments.methods import method_label
from apps.payments.models import DiscountCode, DiscountCodeStatus, DiscountCodeUse

TIME_BONUS_CODE = "TIMEBONUS25"
TIME_BONUS_SECONDS = 14400  # 4 hours after signup
TIME_BONUS_PERCENTAGE = 25
WELCOME_CODE = "WELCOME25"
WELCOME_PERCENTAGE = 25
WELCOME_DISCOUNT_DAYS = 7  # after signup

KIND_CODE = "code"
KIND_TIME_BONUS = "timebonus"
KIND_WELCOME = "welcome"

# Code guessing through GET /api/discountcode.php: checks per member (allauth's limiter).
RATE_LIMIT_ACTION = "discount_code_check"
RATE_LIMIT = "20/10m/user"

# Name in User.dismissals when the member closed the time-bonus modal (spec §4).
TIME_BONUS_DISMISSAL = "time_bonus"
# The members area (spec §2 layouts): the time-bonus modal opens 40 s after entering it.
MEMBERS_AREA_ROUTES = frozenset({"members", "members-id", "chats", "likes", "likes-m-id", "premium"})
TIME_BONUS_MODAL_DELAY_SECONDS = 40


@dataclass(frozen=True)
class Discount:
    code: str
    percentage: int
    expires: datetime | None
    kind: str  # KIND_CODE | KIND_TIME_BONUS | KIND_WELCOME
    # The restrictions of a site's code (spec §3), for the payload; empty means any.
    country: str = ""
    member_id: int | None = None
    currency: str = ""
    minimum_order_value: int = 0
    paymentmethods: tuple[str, ...] = ()

    def seconds_left(self, now: datetime | None = None) -> int | None:
        if self.expires is None:
            return None
        return max(0, math.ceil((self.expires - (now or timezone.now())).total_seconds()))

    def is_expired(self, now: datetime | None = None) -> bool:
        return self.expires is not None and self.expires <= (now or timezone.now())


# --- The member's own discounts -------------------------------------------------------


def _member(user) -> bool:
    return user is not None and getattr(user, "is_authenticated", False) and getattr(user, "pk", None) is not None


def _window_ends(user, seconds: int, now: datetime) -> datetime | None:
    """When a non-paying member's offer of `seconds` after signup ends, if it has not yet."""
    if not _member(user) or user.paid_user or user.date_joined is None:
        return None
    ends = user.date_joined + timedelta(seconds=seconds)
    return ends if now < ends else None


def _used_codes(user, codes: list[str]) -> set[str]:
    if not codes:
        return set()
    return set(DiscountCodeUse.objects.filter(user=user, code__in=codes).values_list("code", flat=True))


def _time_bonus(expires: datetime) -> Discount:
    return Discount(code=TIME_BONUS_CODE, percentage=TIME_BONUS_PERCENTAGE, expires=expires, kind=KIND_TIME_BONUS)


def _welcome(expires: datetime) -> Discount:
    return Discount(code=WELCOME_CODE, percentage=WELCOME_PERCENTAGE, expires=expires, kind=KIND_WELCOME)


def time_bonus(user, *, now: datetime | None = None) -> Discount | None:
    """TIMEBONUS25 for a logged-in, non-paying member whose signup is under 14400 s old
    and who has not used it. No query outside the 4 hours, one inside."""
    now = now or timezone.now()
    expires = _window_ends(user, TIME_BONUS_SECONDS, now)
    if expires is None or _used_codes(user, [TIME_BONUS_CODE]):
        return None
    return _time_bonus(expires)


def welcome_discount(user, *, now: datetime | None = None) -> Discount | None:
    """WELCOME25: 25 % on the first purchase of a non-paying member, until
    WELCOME_DISCOUNT_DAYS after signup, once."""
    now = now or timezone.now()
    expires = _window_ends(user, WELCOME_DISCOUNT_DAYS * 86400, now)
    if expires is None or _used_codes(user, [WELCOME_CODE]):
        return None
    return _welcome(expires)


def active_discount(user, *, now: datetime | None = None) -> Discount | None:
    """The time bonus if present, otherwise the welcome discount (spec §4). At most one
    query (none for paying members or after the welcome period)."""
    now = now or timezone.now()
    bonus_ends = _window_ends(user, TIME_BONUS_SECONDS, now)
    welcome_ends = _window_ends(user, WELCOME_DISCOUNT_DAYS * 86400, now)
    open_codes = [code for code, ends in ((TIME_BONUS_CODE, bonus_ends), (WELCOME_CODE, welcome_ends)) if ends]
    used = _used_codes(user, open_codes)
    if bonus_ends and TIME_BONUS_CODE not in used:
        return _time_bonus(bonus_ends)
    if welcome_ends and WELCOME_CODE not in used:
        return _welcome(welcome_ends)
    return None


# --- Checking a code -----------------------------------------------------------------


def _error(code: str, message: str, status_code: int = 400) -> ApplicationError:
    return ApplicationError(code, message, status_code=status_code, extra={"fields": {"code": [message]}})


def _not_found() -> ApplicationError:
    return _error("code_not_found", _("Code not found"), 404)


def _used() -> ApplicationError:
    return _error("code_used", _("Code already used"), 409)


def _expired(expires: datetime) -> ApplicationError:
    when = locale.date_format(timezone.localtime(expires), "DATETIME_FORMAT")
    return _error("code_expired", locale.one_full_stop(_("This code expired on %(date)s.") % {"date": when}))


def _not_for_you() -> ApplicationError:
    return _error("code_not_for_you", _("This code is not valid for your account."))


def money_text(amount: int, currency: str) -> str:
    """A price in minor units as the member reads it ("€29.95" in English)."""
    from apps.payments.formatting import money_format

    return money_format(amount, currency)


def normalize_code(code: str | None) -> str:
    return (code or "").strip().upper()


def _own_offer(*, user, code: str, seconds: int, make, now: datetime) -> Discount:
    """TIMEBONUS25 or WELCOME25 typed in by hand: the member's own offer, on its rules."""
    if _used_codes(user, [code]):
        raise _used()
    if user.paid_user:
        raise _not_for_you()
    ends = user.date_joined + timedelta(seconds=seconds)
    if ends <= now:
        raise _expired(ends)
    return make(ends)


def discount_check(
    *,
    site,
    user,
    code: str,
    country: str,
    currency: str | None = None,
    amount: int | None = None,
    method: str | None = None,
) -> Discount:
    """The discount `code` gives `user` on `site`, or ApplicationError with a translated
    message (and fields {"code": [message]}): code_required, code_not_found (404),
    code_not_for_you, code_used (409), code_inactive, code_expired, code_wrong_country,
    code_wrong_currency, code_wrong_method, order_too_small. `amount` is the price before
    the discount in `currency`; checks that need a value left out (None) are skipped."""
    code = normalize_code(code)
    if not code:
        raise _error("code_required", _("Enter a discount code."))
    if not _member(user) or len(code) > 40:
        raise _not_found()
    now = timezone.now()
    if code == TIME_BONUS_CODE:
        return _own_offer(user=user, code=code, seconds=TIME_BONUS_SECONDS, make=_time_bonus, now=now)
    if code == WELCOME_CODE:
        return _own_offer(user=user, code=code, seconds=WELCOME_DISCOUNT_DAYS * 86400, make=_welcome, now=now)

    row = DiscountCode.objects.filter(site=site, code=code).first()
    if row is None:
        raise _not_found()
    if row.member_id is not None and row.member_id != user.pk:
        raise _not_for_you()
    if _used_codes(user, [code]):
        raise _used()
    if row.status != DiscountCodeStatus.ACTIVE:
        raise _error("code_inactive", _("This code is no longer valid."))
    if row.expires is not None and row.expires <= now:
        raise _expired(row.expires)
    row_country = row.country.code if row.country else ""
    if row_country and row_country != (country or "").upper():
        raise _error(
            "code_wrong_country", _("This code is not valid in %(country)s.") % {"country": _country_name(country)}
        )
    if row.currency and currency is not None and row.currency != currency:
        raise _error(
            "code_wrong_currency",
            _("This code is only valid for payments in %(currency)s.") % {"currency": row.currency},
        )
    if row.paymentmethods and method and method not in row.paymentmethods:
        methods = ", ".join(method_label(m) for m in row.paymentmethods)
        raise _error(
            "code_wrong_method", _("This code is only valid when you pay with %(methods)s.") % {"methods": methods}
        )
    if row.minimum_order_value and amount is not None and amount < row.minimum_order_value:
        minimum = money_text(row.minimum_order_value, row.currency or currency or "")
        raise _error("order_too_small", _("This code is valid for orders of %(amount)s or more.") % {"amount": minimum})
    return Discount(
        code=row.code,
        percentage=row.value_percentage,
        expires=row.expires,
        kind=KIND_CODE,
        country=row_country,
        member_id=row.member_id,
        currency=row.currency,
        minimum_order_value=row.minimum_order_value,
        paymentmethods=tuple(row.paymentmethods or ()),
    )


def _country_name(code: str | None) -> str:
    from django_countries import countries

    code = (code or "").upper()
    return str(countries.name(code)) or code or _("your country")


def discount_for_payment(
    *, site, user, code: str, country: str, currency: str, amount: int, method: str
) -> Discount | None:
    """The discount of a new payment: the member's active discount when no code was
    typed, otherwise the typed code (discount_check's errors)."""
    if not normalize_code(code):
        return active_discount(user)
    return discount_check(
        site=site, user=user, code=code, country=country, currency=currency, amount=amount, method=method
    )


def discount_check_rate_limit(*, request: HttpRequest, user) -> None:
    """Count one code check of the member; 20 per 10 minutes (code guessing)."""
    usage = ratelimit.consume(
        request,
        app="allauth.account",
        action=RATE_LIMIT_ACTION,
        config={RATE_LIMIT_ACTION: RATE_LIMIT},
        user=user,
        limit_get=True,
    )
    if not usage:
        raise _error(
            "too_many_attempts", _("Too many codes tried. Please wait a few minutes and try again."), status_code=429
        )


def discount_use_record(*, payment) -> None:
    """The member used the payment's discount code (the payment is paid). A repeated
    call, or the same code used again by the same member, is ignored quietly."""
    code = normalize_code(payment.discount_code)
    if not code or payment.user_id is None:
        return
    DiscountCodeUse.objects.bulk_create(
        [DiscountCodeUse(user_id=payment.user_id, code=code, payment=payment)], ignore_conflicts=True
    )


# --- Payloads --------------------------------------------------------------------------


def discount_payload(discount: Discount | None, *, now: datetime | None = None) -> dict | None:
    """A discount in the shape of spec §3 "Discount code"."""
    if discount is None:
        return None
    now = now or timezone.now()
    if discount.expires is None:
        validity = _("Valid without an end date")
    else:
        when = locale.date_format(timezone.localtime(discount.expires), "DATETIME_FORMAT")
        validity = _("Valid until %(date)s") % {"date": when}
    return {
        "code": discount.code,
        "kind": discount.kind,
        "value_percentage": discount.percentage,
        "percentage": discount.percentage,
        "country": discount.country or None,
        "user_id": discount.member_id,
        "expires": discount.expires.isoformat() if discount.expires else None,
        "expired": discount.is_expired(now),
        "seconds_left": discount.seconds_left(now),
        "validity": validity,
        "status": DiscountCodeStatus.ACTIVE.value,
        "currency": discount.currency or None,
        "minimum_order_value": discount.minimum_order_value,
        "paymentmethods": list(discount.paymentmethods),
    }


def time_bonus_payload(bonus: Discount | None, *, now: datetime | None = None) -> dict | None:
    """GET /api/timebonus.php's "time_bonus"."""
    if bonus is None:
        return None
    return {
        "code": bonus.code,
        "percentage": bonus.percentage,
        "expires": bonus.expires.isoformat(),
        "seconds_left": bonus.seconds_left(now),
    }


# --- The time bonus on pages (default layout, TimeBonus island) ----------------------


def time_bonus_page_state(user, *, now: datetime | None = None) -> dict | None:
    """The time bonus in the page's #app-state ("timeBonus"), with no query: a recorded
    use of TIMEBONUS25 belongs to a paid payment, and the first paid payment makes the
    member a paying member for good, so a non-paying member within the 4 hours has not
    used it. (The API and payments check the uses themselves.)"""
    now = now or timezone.now()
    expires = _window_ends(user, TIME_BONUS_SECONDS, now)
    if expires is None:
        return None
    bonus = _time_bonus(expires)
    return {
        "code": bonus.code,
        "percentage": bonus.percentage,
        "expiresAt": int(expires.timestamp() * 1000),
        "secondsLeft": bonus.seconds_left(now),
        "isVisible": False,
    }


def _credits_url() -> str:
    return reverse("credits")


def time_bonus_island_props(request: HttpRequest, state: dict | None) -> dict | None:
    """Props of the TimeBonus island (default layout), or None when there is no bonus."""
    if state is None:
        return None
    match = getattr(request, "resolver_match", None)
    return {
        "creditsUrl": _credits_url(),
        "dismissUrl": reverse("api-dismiss"),
        "dismissal": TIME_BONUS_DISMISSAL,
        "dismissed": TIME_BONUS_DISMISSAL in (request.user.dismissals or {}),
        "membersArea": bool(match and match.url_name in MEMBERS_AREA_ROUTES),
        "modalDelaySeconds": TIME_BONUS_MODAL_DELAY_SECONDS,
    }


def time_bonus_strings() -> dict:
    """The TimeBonus island's strings. `{percentage}` and `{time}` are filled in by it.
    TIMEBONUS25 is the "time bonus" wherever it shows (banner, modal, credits page,
    checkout, premium page); the "welcome discount" is WELCOME25, another offer."""
    return {
        # xgettext:no-python-format
        "bannerText": _("Time bonus: {percentage}% off your first credits!"),
        "bannerTime": _("Only {time} left"),
        "bannerLink": _("Get your discount"),
        # xgettext:no-python-format
        "modalTitle": _("Your time bonus: {percentage}% off"),
        # xgettext:no-python-format
        "modalBody": _("As a new member you get {percentage}% off your first credits. This offer ends in:"),
        # xgettext:no-python-format
        "modalLink": _("Get {percentage}% off now"),
        "timeLeft": _("Time left"),
        "close": _("Close"),
    }


# --- The delete discount (account deletion's save-offer) -------------------------------

DELETE_DISCOUNT_PREFIX = "STAY"
DELETE_DISCOUNT_DAYS = 14


def delete_discount_offer(*, site, user, percentage: int, now: datetime | None = None) -> DiscountCode:
    """The member accepted the delete discount (Company.delete_discount): a code only
    they can use, once, for DELETE_DISCOUNT_DAYS. Accepting again gives the same code
    while it is valid and unused."""
    now = now or timezone.now()
    prefix = f"{DELETE_DISCOUNT_PREFIX}{user.pk}-"
    existing = (
        DiscountCode.objects.filter(site=site, member_id=user.pk, code__startswith=prefix, expires__gt=now)
        .order_by("-expires")
        .first()
    )
    if existing is not None and not _used_codes(user, [existing.code]):
        return existing
    return DiscountCode.objects.create(
        site=site,
        code=f"{prefix}{secrets.token_hex(3).upper()}",
        value_percentage=percentage,
        member_id=user.pk,
        expires=now + timedelta(days=DELETE_DISCOUNT_DAYS),
        status=DiscountCodeStatus.ACTIVE,
    )
