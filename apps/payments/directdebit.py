"""SMS direct debit (spec §2 "SMS direct-debit page", §5, §8; issue 6 item 8).

A member fills in their bank account, address and mobile number and ticks the mandate
text; we send a 6-digit code by SMS (DirectDebitRequest). Entering the code signs the
SEPA mandate at the gateway and charges the package on it at once
(payments.services.payment_charge_mandate); the member then sees the payment's status
page. Reads (what is offered, limits, masks) and writes (requests, codes, confirmation)
of this flow live here; the views only parse and render.

Rules:
- Only where the site offers it (Site.direct_debit_enabled) and the member's payment
  country has the method; never for a member blocked for direct debit.
- A limit per member over 30 days: settings.DIRECT_DEBIT_LIMIT_AMOUNT (minor units) and
  DIRECT_DEBIT_LIMIT_COUNT, over direct debit payments not failed, cancelled or expired.
- Each request has one code: random, 6 digits, stored as a keyed hash, valid 10 minutes,
  single use, 5 wrong tries at most. "Send a new code" makes a new request with the same
  details and voids the old one. At most 3 codes per member per hour.
- The full IBAN and the code never reach a log.
- The code's SMS goes out once the request is stored, through the site's SMS backend
  (apps.payments.sms). A provider that refuses it or does not answer in time marks it
  "failed" and the member hears so at once, with the details kept; a delivery receipt
  saying "failed" later shows on the code page with the "send a new code" button. Either
  way nothing is charged and the request counts towards the hourly limit (a new code is
  one more code)."""

from __future__ import annotations

import logging
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

import phonenumbers
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Sum
from django.http import HttpRequest
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from schwifty import IBAN
from schwifty import exceptions as iban_errors

# Up to accounts: the paying member's account (User).
from apps.accounts.models import User
from apps.common.exceptions import ApplicationError
from apps.common.realtime import event_send_on_commit
from apps.payments.discounts import active_discount
from apps.payments.formatting import money_format
from apps.payments.gateways.base import GatewayError, SignedMandate
from apps.payments.gateways.registry import gateway_for
from apps.payments.models import DirectDebitRequest, Mandate, Payment, PaymentStatus, SmsState
from apps.payments.selectors import OfferedPackage, package_offered, packages_offered, payment_country, payment_methods
from apps.tenants.models import Site

logger = logging.getLogger(__name__)

METHOD = "directdebit"
CODE_DIGITS = 6
CODE_VALID = timedelta(minutes=10)
CODES_PER_HOUR = 3
WRONG_CODES_MAX = 5
LIMIT_PERIOD = timedelta(days=30)
# A confirmed request whose charge failed (gateway down) may be retried this long.
RETRY_PERIOD = timedelta(hours=1)
_HASH_SALT = "apps.payments.directdebit.code"
_NOT_COUNTED = (PaymentStatus.FAILED, PaymentStatus.CANCELED, PaymentStatus.EXPIRED)

# Postal code shapes of the countries that offer direct debit; others get a loose check.
POSTAL_CODE_PATTERNS = {
    "NL": r"^[1-9][0-9]{3} ?[A-Z]{2}$",
    "BE": r"^[1-9][0-9]{3}$",
    "AT": r"^[1-9][0-9]{3}$",
    "DE": r"^[0-9]{5}$",
}
POSTAL_CODE_LOOSE = r"^[A-Z0-9][A-Z0-9 -]{1,9}$"


# --- Messages (spec §8) ---------------------------------------------------------

MESSAGE_BLOCKED = gettext_lazy("Your account is blocked for direct debit payments.")
MESSAGE_LIMIT = gettext_lazy(
    "Your limit for direct debit payments has been reached. Please choose another payment method."
)
MESSAGE_CODE_INVALID = gettext_lazy("Code invalid")
MESSAGE_CODE_EXPIRED = gettext_lazy("This code has expired: a code is valid for 10 minutes. Please ask for a new code.")
MESSAGE_CODE_VOID = gettext_lazy(
    "A wrong code was entered too often, so this code no longer works. Please ask for a new code."
)
MESSAGE_CODE_USED = gettext_lazy("This code has already been used.")
MESSAGE_SMS_NUMBER = gettext_lazy(
    "We cannot send a text message to this number. Please check it, or enter another mobile number."
)
MESSAGE_SMS_UNAVAILABLE = gettext_lazy(
    "We could not send the SMS with your code just now. Nothing was charged. Please try again in a moment."
)
MESSAGE_SMS_UNDELIVERED = gettext_lazy(
    "The SMS with your code could not be delivered. Nothing was charged. Please check your number "
    "or ask for a new code."
)
MESSAGE_CHARGE_FAILED = gettext_lazy("Your code was confirmed, but the payment could not be started. Please try again.")
# What the code page says about a request that no longer takes its code (request_state).
STATE_MESSAGES = {
    "expired": MESSAGE_CODE_EXPIRED,
    "void": MESSAGE_CODE_VOID,
    "failed": MESSAGE_CHARGE_FAILED,
}


def _blocked() -> ApplicationError:
    return ApplicationError("direct_debit_blocked", MESSAGE_BLOCKED, status_code=403)


def _limit() -> ApplicationError:
    return ApplicationError("direct_debit_limit", MESSAGE_LIMIT, status_code=403)


def _code_invalid(code: str = "code_invalid", explanation: str = "", status_code: int = 400) -> ApplicationError:
    return ApplicationError(
        code,
        MESSAGE_CODE_INVALID,
        status_code=status_code,
        extra={"fields": {"code": [MESSAGE_CODE_INVALID]}, "explanation": explanation},
    )


# --- Field rules (used by forms_directdebit) -------------------------------------


def iban_clean(value: str) -> str:
    """The IBAN in compact form (upper case, no spaces) or a ValidationError with a
    message the member can act on. Only SEPA accounts can be debited."""
    compact = "".join((value or "").split()).upper()
    if not compact:
        raise ValidationError(_("Enter your IBAN."), code="required")
    try:
        iban = IBAN(compact)
    except iban_errors.InvalidCountryCode:
        raise ValidationError(
            _("An IBAN starts with a country code such as NL, BE or DE. Please check it."), code="country"
        ) from None
    except iban_errors.InvalidLength:
        raise ValidationError(
            _("This IBAN has the wrong number of characters. Please check it."), code="length"
        ) from None
    except iban_errors.SchwiftyException:
        raise ValidationError(_("This IBAN is not valid. Please check it for typing errors."), code="invalid") from None
    if not iban.in_sepa_zone:
        raise ValidationError(_("Direct debit is only possible from a bank account in the SEPA area."), code="not_sepa")
    return iban.compact


def iban_formatted(iban: str) -> str:
    return IBAN(iban).formatted


def iban_mask(iban: str) -> str:
    """Country and last four characters only, as the gateways show it: "NL** **** **** 4300"."""
    return f"{iban[:2]}** **** **** {iban[-4:]}"


def mobile_clean(value: str, *, country: str) -> str:
    """A mobile number in E.164; national numbers are read as numbers of the payment country."""
    value = (value or "").strip()
    if not value:
        raise ValidationError(_("Enter your mobile number."), code="required")
    try:
        number = phonenumbers.parse(value, country)
    except phonenumbers.NumberParseException:
        raise ValidationError(_("Enter a valid mobile number."), code="invalid") from None
    if not phonenumbers.is_valid_number(number):
        raise ValidationError(_("Enter a valid mobile number."), code="invalid")
    if phonenumbers.number_type(number) not in (
        phonenumbers.PhoneNumberType.MOBILE,
        phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE,
    ):
        raise ValidationError(
            _("This is not a mobile number. We send the code by SMS, so enter a mobile number."), code="not_mobile"
        )
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def mobile_formatted(e164: str) -> str:
    return phonenumbers.format_number(phonenumbers.parse(e164), phonenumbers.PhoneNumberFormat.INTERNATIONAL)


def mobile_mask(e164: str) -> str:
    """'+31••••••••78': the country code and the last two digits."""
    number = phonenumbers.parse(e164)
    prefix = f"+{number.country_code}"
    return f"{prefix}{'•' * max(len(e164) - len(prefix) - 2, 0)}{e164[-2:]}"


def postal_code_clean(value: str, *, country: str) -> str:
    code = " ".join((value or "").upper().split())
    if not code:
        raise ValidationError(_("Enter your postal code."), code="required")
    if not re.match(POSTAL_CODE_PATTERNS.get(country, POSTAL_CODE_LOOSE), code):
        raise ValidationError(_("Enter a valid postal code."), code="invalid")
    return code


def house_number_clean(value: str) -> str:
    number = " ".join((value or "").split())
    if not number:
        raise ValidationError(_("Enter your house number."), code="required")
    if not any(char.isdigit() for char in number):
        raise ValidationError(_("Enter a valid house number, for example 12 or 12a."), code="invalid")
    return number


# --- Reads ----------------------------------------------------------------------


def directdebit_available(*, site: Site, country: str) -> bool:
    return bool(site.direct_debit_enabled) and METHOD in payment_methods(country=country)


@dataclass(frozen=True)
class DirectDebitOffer:
    """What the member is about to buy, priced with the active discount."""

    package: OfferedPackage
    discount_code: str
    amount_text: str
    list_amount_text: str

    @property
    def amount(self) -> int:
        return self.package.amount


def directdebit_packages(*, request: HttpRequest, user: User, now: datetime | None = None) -> list[DirectDebitOffer]:
    discount = active_discount(user, now=now)
    percentage = discount.percentage if discount else 0
    country = payment_country(request=request, user=user)
    return [
        _offer(package, discount.code if discount else "")
        for package in packages_offered(site=request.site, country=country, discount_percentage=percentage)
    ]


def directdebit_offer(
    *, request: HttpRequest, user: User, package_id: int | None, now: datetime | None = None
) -> DirectDebitOffer | None:
    if package_id is None:
        return None
    discount = active_discount(user, now=now)
    package = package_offered(
        site=request.site,
        package_id=package_id,
        country=payment_country(request=request, user=user),
        discount_percentage=discount.percentage if discount else 0,
    )
    return _offer(package, discount.code if discount else "") if package else None


def _offer(package: OfferedPackage, discount_code: str) -> DirectDebitOffer:
    return DirectDebitOffer(
        package=package,
        discount_code=discount_code,
        amount_text=money_format(package.amount, package.currency),
        list_amount_text=money_format(package.list_amount, package.currency),
    )


def directdebit_usage(*, user: User, now: datetime | None = None) -> tuple[int, int]:
    """(amount in minor units, number) of the member's direct debit payments of the last
    30 days that did not fail, were not cancelled and did not expire."""
    since = (now or timezone.now()) - LIMIT_PERIOD
    totals = (
        Payment.objects.filter(user=user, method=METHOD, created__gte=since)
        .exclude(status__in=_NOT_COUNTED)
        .aggregate(amount=Sum("amount"), count=Count("pk"))
    )
    return totals["amount"] or 0, totals["count"]


def directdebit_limit_reached(*, user: User, amount: int, now: datetime | None = None) -> bool:
    """Would one more payment of `amount` go over the member's direct debit limit?"""
    used_amount, used_count = directdebit_usage(user=user, now=now)
    return (
        used_count + 1 > settings.DIRECT_DEBIT_LIMIT_COUNT or used_amount + amount > settings.DIRECT_DEBIT_LIMIT_AMOUNT
    )


def mandate_text(*, site: Site, offer: DirectDebitOffer) -> str:
    company = site.company.name if site.company_id else site.name
    return _(
        "By ticking this box I authorise %(company)s to send instructions to my bank to debit "
        "%(amount)s from my account for %(credits)s credits on %(site)s, and for later orders "
        "that I confirm myself, and my bank to debit my account in accordance with those "
        "instructions. I can ask my bank for a refund within 8 weeks of the date of the debit, "
        "under the conditions of my bank."
    ) % {"company": company, "amount": offer.amount_text, "credits": offer.package.credits, "site": site.name}


def directdebit_request_for(*, user: User, request_id: int) -> DirectDebitRequest | None:
    """The member's own request, or None (another member's request does not exist for them)."""
    return DirectDebitRequest.objects.filter(pk=request_id, user=user).select_related("payment").first()


def request_state(dd_request: DirectDebitRequest, *, now: datetime | None = None) -> str:
    """The request's state: "open" (waiting for its code), "expired", "void" (too many wrong codes or replaced
    by a new code), "failed" (confirmed, but charging it failed: may be retried),
    or "done" (confirmed and charged)."""
    now = now or timezone.now()
    if dd_request.confirmed_at:
        return "done" if dd_request.payment_id else "failed"
    if dd_request.attempts >= WRONG_CODES_MAX:
        return "void"
    if dd_request.code_expires <= now:
        return "expired"
    return "open"


def payment_status_url(payment: Payment) -> str:
    """The payment status screen (route credits-id-paymentmethod)."""
    return f"/credits/{payment.package_id}/{METHOD}?{urlencode({'payment': payment.public_id})}"


# --- Writes ---------------------------------------------------------------------


def _code_new() -> tuple[str, str]:
    """A fresh code and its stored form: 'salt$hmac' keyed with the SECRET_KEY."""
    code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
    return code, _code_hash(code, salt=secrets.token_hex(8))


def _code_hash(code: str, *, salt: str) -> str:
    return f"{salt}${salted_hmac(_HASH_SALT, f'{salt}:{code}', algorithm='sha256').hexdigest()}"


def _code_matches(code: str, stored: str) -> bool:
    salt, _sep, _digest = stored.partition("$")
    return bool(salt) and constant_time_compare(_code_hash(code, salt=salt), stored)


def _checks(*, request: HttpRequest, user: User, package_id: int, now: datetime) -> DirectDebitOffer:
    """What every step checks again: the method is offered, the member is not blocked,
    the package is on sale, the limit is not reached."""
    if not directdebit_available(site=request.site, country=payment_country(request=request, user=user)):
        raise ApplicationError(
            "method_not_available",
            _("Direct debit is not available for you. Please choose another payment method."),
        )
    if user.direct_debit_blocked:
        raise _blocked()
    offer = directdebit_offer(request=request, user=user, package_id=package_id, now=now)
    if offer is None:
        message = _("This package is not available. Please choose a package.")
        raise ApplicationError("package_not_found", message, extra={"fields": {"package": [message]}})
    if directdebit_limit_reached(user=user, amount=offer.amount, now=now):
        raise _limit()
    return offer


def _hourly_codes_check(*, user: User, now: datetime) -> None:
    """At most CODES_PER_HOUR codes per member per rolling hour. The caller holds the
    member's row lock, so parallel requests count each other."""
    recent = list(
        DirectDebitRequest.objects.filter(user=user, created__gt=now - timedelta(hours=1))
        .order_by("created")
        .values_list("created", flat=True)
    )
    if len(recent) >= CODES_PER_HOUR:
        wait = recent[-CODES_PER_HOUR] + timedelta(hours=1) - now
        minutes = max(1, int(wait.total_seconds() + 59) // 60)
        raise ApplicationError(
            "too_many_codes",
            ngettext(
                "You have asked for too many codes. Please try again in %(minutes)s minute.",
                "You have asked for too many codes. Please try again in %(minutes)s minutes.",
                minutes,
            )
            % {"minutes": minutes},
            status_code=429,
        )


def _sms_text(*, site: Site, code: str, offer: DirectDebitOffer) -> str:
    return _(
        "%(site)s: your code is %(code)s. Enter it to confirm your direct debit of %(amount)s. "
        "The code is valid for 10 minutes."
    ) % {"site": site.name, "code": code, "amount": offer.amount_text}


def _request_issue(*, request: HttpRequest, user: User, fields: dict, now: datetime) -> DirectDebitRequest:
    """Checks, the hourly limit, a new request with its code, then its SMS (_sms_deliver)."""
    with transaction.atomic():
        member = User.objects.select_for_update().get(pk=user.pk)
        offer = _checks(request=request, user=member, package_id=fields["package_id"], now=now)
        _hourly_codes_check(user=member, now=now)
        code, code_hash = _code_new()
        dd_request = DirectDebitRequest.objects.create(
            user=member,
            authorized_at=now,
            code_hash=code_hash,
            code_expires=now + CODE_VALID,
            **fields,
        )
        # The created time drives the hourly limit; pin it to `now` (tests pass their own).
        DirectDebitRequest.objects.filter(pk=dd_request.pk).update(created=now)
        text = _sms_text(site=request.site, code=code, offer=offer)
    # Sent once the request is stored (it counts towards the hourly limit whatever the
    # provider says), never inside the transaction: the member's row lock would be held
    # while the provider is waited for.
    _sms_deliver(site=request.site, dd_request=dd_request, text=text)
    return dd_request


def _sms_deliver(*, site: Site, dd_request: DirectDebitRequest, text: str) -> None:
    """Send the code's SMS and record what the provider said. A refusal or no answer in
    time marks the SMS "failed" and raises ApplicationError: a number that cannot get it
    under the mobile field (400), anything else as the provider's trouble (503); the
    member asks again, within the hourly limit. Nothing was charged."""
    from apps.payments.sms import SmsError, sms_send

    try:
        message_id = sms_send(to=dd_request.mobile, text=text, site=site)
    except SmsError as error:
        _sms_state_set(dd_request, state=SmsState.FAILED, error=error.detail)
        logger.warning(
            "direct debit request %s: SMS to %s not sent (%s)", dd_request.pk, mobile_mask(dd_request.mobile), error
        )
        if error.permanent:
            raise ApplicationError(
                "sms_number_refused",
                MESSAGE_SMS_NUMBER,
                extra={"fields": {"mobile": [MESSAGE_SMS_NUMBER]}, "request_id": dd_request.pk},
            ) from None
        raise ApplicationError(
            "sms_unavailable", MESSAGE_SMS_UNAVAILABLE, status_code=503, extra={"request_id": dd_request.pk}
        ) from None
    dd_request.sms_message_id = message_id[:64]
    _sms_state_set(dd_request, state=SmsState.SENT)
    logger.info("direct debit request %s: code sent to %s", dd_request.pk, mobile_mask(dd_request.mobile))


def _sms_state_set(dd_request: DirectDebitRequest, *, state: str, error: str = "") -> None:
    dd_request.sms_state, dd_request.sms_error, dd_request.sms_updated = state, error[:120], timezone.now()
    dd_request.save(update_fields=["sms_state", "sms_error", "sms_message_id", "sms_updated"])


# The event a member's open pages get when a code's SMS failed (static_src/base/smsWatch.ts).
SMS_EVENT = "directdebit.sms"

# What a delivery receipt's status means for the code's SMS (Twilio's message statuses).
# The provider may report them out of order: a final state ("delivered", "failed") is
# never overwritten by "sent".
SMS_RECEIPT_STATES = {
    "accepted": SmsState.SENT,
    "scheduled": SmsState.SENT,
    "queued": SmsState.SENT,
    "sending": SmsState.SENT,
    "sent": SmsState.SENT,
    "delivered": SmsState.DELIVERED,
    "read": SmsState.DELIVERED,
    "undelivered": SmsState.FAILED,
    "failed": SmsState.FAILED,
    "canceled": SmsState.FAILED,
}


def directdebit_sms_receipt(*, site_id: int, message_id: str, status: str, error_code: str = "") -> bool:
    """A delivery receipt for the SMS `message_id` of the current site (`site_id`): records
    the state, and tells the member's open code page when it failed (base/smsWatch.ts
    then offers a new code). False when no request of this site sent that message.
    `status` is a key of SMS_RECEIPT_STATES (the view refuses others)."""
    state = SMS_RECEIPT_STATES[status]
    with transaction.atomic():
        dd_request = DirectDebitRequest.objects.select_for_update().filter(sms_message_id=message_id).first()
        if dd_request is None:
            return False
        final = (SmsState.DELIVERED, SmsState.FAILED)
        if dd_request.sms_state in final and (state == SmsState.SENT or dd_request.sms_state == SmsState.DELIVERED):
            return True
        error = f"{status} {error_code}".strip() if state == SmsState.FAILED else ""
        _sms_state_set(dd_request, state=state, error=error)
        if state == SmsState.FAILED:
            event_send_on_commit(
                user_id=dd_request.user_id,
                site_id=site_id,
                event={"type": SMS_EVENT, "request": dd_request.pk, "state": str(state)},
            )
    logger.info("direct debit request %s: SMS %s", dd_request.pk, state)
    return True


def directdebit_request_create(
    *,
    request: HttpRequest,
    user: User,
    package_id: int,
    account_holder: str,
    iban: str,
    street: str,
    house_number: str,
    postal_code: str,
    city: str,
    mobile: str,
    now: datetime | None = None,
) -> DirectDebitRequest:
    """Step 1: the member authorised the mandate; store the request and send its code.
    `iban` is compact and `mobile` E.164 (forms_directdebit cleans them)."""
    return _request_issue(
        request=request,
        user=user,
        fields={
            "package_id": package_id,
            "account_holder": account_holder,
            "iban": iban,
            "street": street,
            "house_number": house_number,
            "postal_code": postal_code,
            "city": city,
            "mobile": mobile,
        },
        now=now or timezone.now(),
    )


def directdebit_code_resend(
    *, request: HttpRequest, user: User, dd_request: DirectDebitRequest, now: datetime | None = None
) -> DirectDebitRequest:
    """The "send a new code" button: a new request with the same details (and a new code); the old
    one stops working. Counts towards the hourly limit."""
    now = now or timezone.now()
    if dd_request.user_id != user.pk or dd_request.confirmed_at:
        raise _code_invalid()
    new = _request_issue(
        request=request,
        user=user,
        fields={
            name: getattr(dd_request, name)
            for name in (
                "package_id",
                "account_holder",
                "iban",
                "street",
                "house_number",
                "postal_code",
                "city",
                "mobile",
            )
        },
        now=now,
    )
    DirectDebitRequest.objects.filter(pk=dd_request.pk, confirmed_at__isnull=True).update(
        code_expires=min(dd_request.code_expires, now)
    )
    return new


def directdebit_confirm(
    *, request: HttpRequest, user: User, request_id: int, code: str, now: datetime | None = None
) -> Payment:
    """Step 2: the code from the SMS. Right once: signs the mandate at the gateway and
    charges the package on it; returns the payment. Anything else raises
    ApplicationError "Code invalid" (wrong, used, expired, too many tries, or the code of
    another request) and counts a wrong try."""
    now = now or timezone.now()
    code = "".join((code or "").split())
    with transaction.atomic():
        dd_request = DirectDebitRequest.objects.select_for_update().filter(pk=request_id, user=user).first()
        if dd_request is None:
            raise _code_invalid()
        state = request_state(dd_request, now=now)
        if state in ("done", "failed"):
            raise _code_invalid("code_used", str(MESSAGE_CODE_USED))
        if state == "void":
            raise _too_many_tries()
        if state == "expired":
            raise _code_invalid("code_expired", str(MESSAGE_CODE_EXPIRED))
        right = _code_matches(code, dd_request.code_hash)
        if not right:
            dd_request.attempts += 1
            dd_request.save(update_fields=["attempts"])
        else:
            dd_request.confirmed_at = now
            dd_request.save(update_fields=["confirmed_at"])
    # Outside the block so the wrong try stays counted.
    if not right:
        logger.info("direct debit request %s: wrong code (%s)", dd_request.pk, dd_request.attempts)
        if dd_request.attempts >= WRONG_CODES_MAX:
            raise _too_many_tries()
        left = WRONG_CODES_MAX - dd_request.attempts
        raise _code_invalid(
            explanation=ngettext(
                "Please check the code in the SMS. You can try %(count)s more time.",
                "Please check the code in the SMS. You can try %(count)s more times.",
                left,
            )
            % {"count": left}
        )
    logger.info("direct debit request %s: confirmed", dd_request.pk)
    return directdebit_charge(request=request, user=user, dd_request=dd_request, now=now)


def _too_many_tries() -> ApplicationError:
    return _code_invalid("too_many_attempts", str(MESSAGE_CODE_VOID), status_code=429)


def _mandate_reference(site: Site, dd_request: DirectDebitRequest) -> str:
    # SEPA: at most 35 characters of A-Z, 0-9 and a few signs, unique per creditor.
    prefix = "".join(char for char in site.schema_name.upper() if char.isalnum())[:16]
    return f"{prefix}-DD-{dd_request.pk}"


def directdebit_charge(
    *, request: HttpRequest, user: User, dd_request: DirectDebitRequest, now: datetime | None = None
) -> Payment:
    """Sign the mandate at the gateway, store it, and charge the package on it. For a
    confirmed request without a payment: also the retry after a gateway failure, which
    reuses the mandate when it was already stored. One at a time per member (a lock in
    the cache), so two requests cannot pass the limit together."""
    from apps.payments.services import payment_charge_mandate

    now = now or timezone.now()
    if dd_request.user_id != user.pk or dd_request.confirmed_at is None or dd_request.payment_id:
        raise _code_invalid("code_used", str(MESSAGE_CODE_USED))
    if dd_request.confirmed_at < now - RETRY_PERIOD:
        raise _code_invalid("code_expired", _("This order is too old. Please start again."))
    lock = f"directdebit:charge:{user.pk}"
    if not cache.add(lock, 1, timeout=120):
        raise ApplicationError(
            "payment_in_progress", _("Your payment is being processed. Please wait a moment."), status_code=409
        )
    try:
        member = User.objects.get(pk=user.pk)
        _checks(request=request, user=member, package_id=dd_request.package_id, now=now)
        mandate = _mandate_for(request=request, user=member, dd_request=dd_request, now=now)
        payment = payment_charge_mandate(
            request=request, user=member, package_id=dd_request.package_id, mandate=mandate, discount_code=""
        )
        DirectDebitRequest.objects.filter(pk=dd_request.pk).update(payment=payment)
        dd_request.payment = payment
    finally:
        cache.delete(lock)
    logger.info("direct debit request %s: payment %s", dd_request.pk, payment.public_id)
    return payment


def _mandate_for(*, request: HttpRequest, user: User, dd_request: DirectDebitRequest, now: datetime) -> Mandate:
    site = request.site
    gateway = gateway_for(site)
    details = iban_mask(dd_request.iban)
    # A retry after a failed charge finds the mandate the first try stored.
    existing = (
        Mandate.objects.filter(
            user=user,
            gateway=gateway.name,
            method=METHOD,
            details=details,
            is_valid=True,
            created__gte=dd_request.confirmed_at,
        )
        .order_by("-created")
        .first()
    )
    if existing is not None:
        return existing
    try:
        customer_id = gateway.customer_create(
            name=dd_request.account_holder, email=user.email, metadata={"user_id": user.pk, "site": site.schema_name}
        )
        mandate_id, _provider_details = gateway.mandate_create(
            SignedMandate(
                customer_id=customer_id,
                consumer_name=dd_request.account_holder,
                consumer_account=dd_request.iban,
                signature_date=timezone.localdate(now).isoformat(),
                mandate_reference=_mandate_reference(site, dd_request),
            )
        )
    except GatewayError as error:
        logger.warning("direct debit request %s: gateway refused the mandate (%s)", dd_request.pk, type(error).__name__)
        raise ApplicationError(
            "gateway_unavailable", _("An error occured, please try again later."), status_code=503
        ) from error
    return Mandate.objects.create(
        user=user,
        gateway=gateway.name,
        customer_id=customer_id,
        mandate_id=mandate_id,
        method=METHOD,
        details=details,
    )
