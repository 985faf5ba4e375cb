"""Money as members read it."""

from decimal import Decimal

from django.utils import formats
from django.utils.translation import get_language

CURRENCY_SYMBOLS = {
    "EUR": "€",
    "GBP": "£",
    "USD": "$",
    "CHF": "CHF",
    "DKK": "kr.",
    "SEK": "kr",
    "NOK": "kr",
    "PLN": "zł",
    "CAD": "CA$",
    "AUD": "A$",
    "NZD": "NZ$",
}


def money_format(amount: int, currency: str) -> str:
    """An amount in minor units as the current language writes it: "€14.95" in English,
    "€ 14,95" in Dutch, "14,95 €" in French or German. Every currency sold has cents."""
    number = formats.number_format(Decimal(amount).scaleb(-2), decimal_pos=2, use_l10n=True, force_grouping=True)
    symbol = CURRENCY_SYMBOLS.get(currency, currency)
    language = (get_language() or "en").split("-")[0]
    if language == "en":
        return f"{symbol}{number}" if len(symbol) == 1 else f"{symbol}\u00a0{number}"
    if language == "nl":
        return f"{symbol}\u00a0{number}"
    return f"{number}\u00a0{symbol}"
