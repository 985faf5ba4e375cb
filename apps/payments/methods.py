"""Payment methods (spec §3 "Payment methods seen") and which ones each payment country
is offered, most used first. Codes are the gateway's (Mollie's) method ids where one
exists; the card brands and wallets that Mollie takes as "creditcard" map to it."""

from django.utils.translation import gettext_lazy as _

# code: (label, gateway method)
PAYMENT_METHODS: dict[str, tuple[str, str]] = {
    "ideal": ("iDEAL", "ideal"),
    "bancontact": ("Bancontact", "bancontact"),
    "creditcard": (_("Credit card"), "creditcard"),
    "visa": ("Visa", "creditcard"),
    "mastercard": ("Mastercard", "creditcard"),
    "maestro": ("Maestro", "creditcard"),
    "cartebancaire": ("Carte Bancaire", "creditcard"),
    "dankort": ("Dankort", "creditcard"),
    "nexi": ("Nexi", "creditcard"),
    "applepay": ("Apple Pay", "applepay"),
    "paypal": ("PayPal", "paypal"),
    "paysafecard": ("paysafecard", "paysafecard"),
    "sofort": ("SOFORT", "sofort"),
    "giropay": ("giropay", "giropay"),
    "eps": ("eps", "eps"),
    "przelewy24": ("Przelewy24", "przelewy24"),
    "blik": ("BLIK", "blik"),
    "mobilepay": ("MobilePay", "mobilepay"),
    "swish": ("Swish", "swish"),
    "vipps": ("Vipps", "vipps"),
    "twint": ("TWINT", "twint"),
    "satispay": ("Satispay", "satispay"),
    "banktransfer": (_("Wire transfer"), "banktransfer"),
    "directdebit": (_("SEPA direct debit"), "directdebit"),
}

# Methods that leave a mandate for one-click repeat orders.
MANDATE_METHODS = frozenset({"creditcard", "visa", "mastercard", "maestro", "cartebancaire", "paypal", "directdebit"})

_CARDS = ("creditcard", "applepay", "paypal")
METHODS_BY_COUNTRY: dict[str, tuple[str, ...]] = {
    "NL": ("ideal", *_CARDS, "directdebit", "banktransfer", "paysafecard"),
    "BE": ("bancontact", "ideal", *_CARDS, "directdebit", "banktransfer"),
    "DE": ("sofort", "giropay", *_CARDS, "directdebit", "banktransfer", "paysafecard"),
    "AT": ("eps", "sofort", *_CARDS, "directdebit", "banktransfer", "paysafecard"),
    "FR": ("cartebancaire", *_CARDS, "banktransfer"),
    "IT": ("satispay", "nexi", *_CARDS, "banktransfer"),
    "ES": (*_CARDS, "banktransfer"),
    "PL": ("blik", "przelewy24", *_CARDS, "banktransfer"),
    "DK": ("dankort", "mobilepay", *_CARDS),
    "FI": ("mobilepay", *_CARDS),
    "NO": ("vipps", *_CARDS),
    "SE": ("swish", *_CARDS),
    "CH": ("twint", *_CARDS),
    "GB": ("visa", "mastercard", "maestro", "applepay", "paypal"),
    "IE": ("visa", "mastercard", "applepay", "paypal"),
}
DEFAULT_METHODS: tuple[str, ...] = ("visa", "mastercard", "applepay", "paypal")


def methods_for_country(country: str | None) -> tuple[str, ...]:
    return METHODS_BY_COUNTRY.get((country or "").upper(), DEFAULT_METHODS)


def method_label(code: str) -> str:
    return str(PAYMENT_METHODS[code][0]) if code in PAYMENT_METHODS else code


def gateway_method(code: str) -> str:
    return PAYMENT_METHODS[code][1]
