"""The Mollie gateway (mollie-api-python 4), with the site's own API key.

Every call goes through `_call`, which turns the client's exceptions into ours: no answer
(connection refused, DNS, connect or read timeout) is a GatewayTimeout, an error Mollie
reports (a JSON problem with a status and a detail) or an answer we cannot read is a
GatewayError carrying Mollie's detail. Amounts cross the boundary as Mollie's decimal
strings ("12.34") and are integer minor units on our side."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Self
from urllib.parse import urlsplit

from mollie.api.client import Client
from mollie.api.error import Error as MollieError
from mollie.api.error import RequestError, RequestSetupError, ResponseError
from mollie.api.objects.customer import Customer
from mollie.api.objects.payment import Payment as MolliePayment

from apps.payments.gateways.base import (
    GatewayError,
    GatewayTimeout,
    PaymentOrder,
    ProviderPayment,
    ProviderRefund,
    SignedMandate,
)
from apps.payments.methods import PAYMENT_METHODS, gateway_method
from apps.tenants.models import Site

# (connect, read) seconds: a member waits for payment_start and Mollie waits for our
# webhook answer, so neither may hang on a slow provider.
TIMEOUT = (3, 10)
# Connect errors only (the request never left): one quick retry, no backoff sleep.
CONNECT_RETRIES = 1

# Decimal places of the currencies Mollie accepts (docs.mollie.com "Multicurrency");
# our minor units follow ISO 4217, which agrees for all of them.
_TWO_DECIMALS = (
    "AED", "AUD", "BGN", "BRL", "CAD", "CHF", "CZK", "DKK", "EUR", "GBP", "HKD", "HRK", "HUF", "ILS",
    "MXN", "MYR", "NOK", "NZD", "PHP", "PLN", "RON", "RUB", "SEK", "SGD", "THB", "TWD", "USD", "ZAR",
)  # fmt: skip
CURRENCY_DECIMALS: dict[str, int] = {**dict.fromkeys(_TWO_DECIMALS, 2), "ISK": 0, "JPY": 0}

_ID = {
    "payment": re.compile(r"^tr_\w+$"),
    "customer": re.compile(r"^cst_\w+$"),
    "mandate": re.compile(r"^mdt_\w+$"),
}
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


def amount_to_mollie(amount: int, currency: str) -> dict:
    """Minor units to Mollie's amount object: 1234 EUR -> {"currency": "EUR", "value": "12.34"}."""
    currency = (currency or "").upper()
    if currency not in CURRENCY_DECIMALS:
        raise GatewayError(f"Mollie does not take payments in {currency or 'an empty currency'}.")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise GatewayError(f"Invalid amount {amount!r}: whole minor units expected.")
    decimals = CURRENCY_DECIMALS[currency]
    value = Decimal(amount).scaleb(-decimals)
    return {"currency": currency, "value": f"{value:.{decimals}f}"}


def amount_from_mollie(amount: dict | None) -> int:
    """Mollie's amount object to minor units; a missing amount (e.g. no refunds yet) is 0."""
    if not amount:
        return 0
    currency = str(amount.get("currency", "")).upper()
    if currency not in CURRENCY_DECIMALS:
        raise GatewayError(f"Mollie reported an amount in an unknown currency: {currency!r}.")
    try:
        minor = Decimal(str(amount["value"])).scaleb(CURRENCY_DECIMALS[currency])
    except (KeyError, InvalidOperation) as err:
        raise GatewayError(f"Mollie reported an unreadable amount: {amount!r}.") from err
    if minor != minor.to_integral_value():
        raise GatewayError(f"Mollie reported more decimals than {currency} has: {amount!r}.")
    return int(minor)


def mask_account(account: str) -> str:
    """An IBAN as "NL** **** **** 1234", an e-mail address (PayPal) as "j•••@example.com"."""
    account = (account or "").replace(" ", "")
    if not account:
        return ""
    if "@" in account:
        local, _, domain = account.partition("@")
        return f"{local[:1]}•••@{domain}"
    if len(account) <= 4:
        return account
    return f"{account[:2]}** **** **** {account[-4:]}"


def mandate_details(details: dict | None) -> str:
    """What the member recognises a stored mandate by: the card's brand and last four
    digits, or the masked account (IBAN, PayPal address). Never the full number."""
    details = details or {}
    if details.get("cardNumber"):  # Mollie gives only the last four digits
        label = details.get("cardLabel") or ""
        return f"{label} •••• {str(details['cardNumber'])[-4:]}".strip()
    return mask_account(str(details.get("consumerAccount") or ""))


def _webhook_reachable(url: str) -> bool:
    """Mollie refuses a webhook on localhost (it cannot reach it); local development then
    relies on the status fetch at the return and on the reconciliation task."""
    host = (urlsplit(url).hostname or "").lower()
    return bool(host) and host not in _LOCAL_HOSTS and not host.endswith(".localhost")


class MollieGateway:
    name = "mollie"

    def __init__(self, api_key: str) -> None:
        self.client = Client(timeout=TIMEOUT, retry=CONNECT_RETRIES)
        self._key_error = ""
        try:
            self.client.set_api_key(api_key or "")
        except RequestSetupError:
            # Raised at the first call, where the payments service handles GatewayError.
            self._key_error = "The site has no valid Mollie API key (live_… or test_…)."

    @classmethod
    def for_site(cls, site: Site) -> Self:
        """With the site's own key (Site.mollie_api_key, stored encrypted)."""
        return cls(api_key=site.mollie_api_key)

    # --- calls ---------------------------------------------------------------------

    def _call(self, fn, *args, **kwargs):
        if self._key_error:
            raise GatewayError(self._key_error)
        try:
            return fn(*args, **kwargs)
        except ResponseError as err:
            field = f" (field {err.field})" if err.field else ""
            raise GatewayError(f"Mollie {err.status}: {err}{field}") from err
        except RequestSetupError as err:  # invalid data or identifier, before sending
            raise GatewayError(f"Mollie request not sent: {err}") from err
        except RequestError as err:  # no answer: connection error or timeout
            raise GatewayTimeout(f"Mollie did not answer: {err}") from err
        except MollieError as err:  # an answer we cannot read (e.g. an HTML 502)
            raise GatewayError(f"Mollie answered unexpectedly: {err}") from err

    @staticmethod
    def _check_id(kind: str, value: str | None) -> str:
        if not value or not _ID[kind].match(value):
            raise GatewayError(f"Invalid Mollie {kind} id {value!r}.")
        return value

    def _customer(self, customer_id: str) -> Customer:
        """A customer handle for its sub-resources, without fetching it."""
        return Customer({"id": self._check_id("customer", customer_id)}, self.client)

    # --- Gateway protocol ----------------------------------------------------------

    def payment_create(self, order: PaymentOrder) -> ProviderPayment:
        sequence, method = order.sequence, order.method
        if sequence not in ("oneoff", "first", "recurring"):
            raise GatewayError(f"Unknown payment sequence {sequence!r}.")
        data: dict = {
            "amount": amount_to_mollie(order.amount, order.currency),
            "description": (order.description or "").strip()[:255],
            "redirectUrl": order.redirect_url,
            "metadata": order.metadata or {},
            "sequenceType": sequence,
        }
        if order.webhook_url and _webhook_reachable(order.webhook_url):
            data["webhookUrl"] = order.webhook_url
        if sequence == "recurring":
            # Charged on the stored mandate, which decides the method; no checkout.
            data["mandateId"] = self._check_id("mandate", order.mandate_id)
        elif method:
            data["method"] = gateway_method(method) if method in PAYMENT_METHODS else method
        # A first payment stores a mandate on the customer; a recurring one charges it.
        resource = self.client.payments if sequence == "oneoff" else self._customer(order.customer_id or "").payments
        payment = self._call(resource.create, data, idempotency_key=order.idempotency_key or "")
        return self._provider_payment(payment)

    def payment_fetch(self, provider_id: str) -> ProviderPayment:
        payment = self._call(self.client.payments.get, self._check_id("payment", provider_id))
        return self._provider_payment(payment)

    def customer_create(self, *, name: str, email: str, metadata: dict) -> str:
        data: dict = {"metadata": metadata or {}}
        if name:
            data["name"] = name
        if email:
            data["email"] = email
        customer = self._call(self.client.customers.create, data)
        return customer.id

    def mandate_create(self, mandate: SignedMandate) -> tuple[str, str]:
        data = {
            "method": "directdebit",
            "consumerName": mandate.consumer_name,
            "consumerAccount": (mandate.consumer_account or "").replace(" ", "").upper(),
            "signatureDate": mandate.signature_date,
            "mandateReference": mandate.mandate_reference,
        }
        mandates = self._customer(mandate.customer_id).mandates
        # The same reference on the same customer is the same mandate: a retry after a
        # timeout must not create a second one.
        key = f"mandate-{mandate.customer_id}-{mandate.mandate_reference}"[:100]
        stored = self._call(mandates.create, data, idempotency_key=key)
        return stored.id, mandate_details(stored.details) or mask_account(data["consumerAccount"])

    def refund_create(
        self, *, provider_id: str, amount: int, currency: str, description: str, idempotency_key: str
    ) -> ProviderRefund:
        if not idempotency_key:
            raise GatewayError("A refund needs an idempotency key.")
        payment = MolliePayment({"id": self._check_id("payment", provider_id)}, self.client)
        data = {"amount": amount_to_mollie(amount, currency), "description": (description or "").strip()[:255]}
        refund = self._call(payment.refunds.create, data, idempotency_key=idempotency_key)
        return ProviderRefund(id=refund.id, status=refund.status, amount=self._amount(refund.amount))

    # --- mapping -------------------------------------------------------------------

    def _amount(self, amount: dict | None) -> int:
        return amount_from_mollie(amount)

    def _provider_payment(self, payment: MolliePayment) -> ProviderPayment:
        if not payment.id or not payment.status or not payment.amount:
            raise GatewayError(f"Mollie answered with an incomplete payment: {dict(payment)!r}.")
        details = payment.details or {}
        extra = {
            "mode": payment.mode,
            "paid_at": payment.paid_at,
            "metadata": payment.metadata,
        }
        failure = details.get("failureReason") or details.get("bankReasonCode")
        if failure:
            extra["failure_reason"] = failure
        return ProviderPayment(
            id=payment.id,
            status=payment.status,
            amount=self._amount(payment.amount),
            currency=payment.amount["currency"],
            method=payment.method,
            checkout_url=payment.checkout_url,
            amount_refunded=self._amount(payment.amount_refunded),
            amount_charged_back=self._amount(payment.amount_chargedback),
            customer_id=payment.customer_id,
            mandate_id=payment.mandate_id,
            mandate_details=mandate_details(details) if payment.mandate_id else "",
            sequence=payment.sequence_type or "oneoff",
            extra=extra,
        )
