"""Money as members read it."""

from decimal import Decimal

from django.utils import numberformat

from apps.common.locale import get_format, locale_tag

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


def money_format(amount: int, currency: str, tag: str | None = None) -> str:
    """An amount in minor units as the member's locale (apps.common.locale: language and
    country) writes it: "€14.95" in English, "€ 14,95" in Dutch, "14,95 €" in French or
    German; the separators of the country's format ("1'234.50 CHF" in de-CH where Django
    says so). Every currency sold has cents."""
    tag = tag or locale_tag()
    number = numberformat.format(
        Decimal(amount).scaleb(-2),
        get_format("DECIMAL_SEPARATOR", tag),
        decimal_pos=2,
        grouping=get_format("NUMBER_GROUPING", tag),
        thousand_sep=get_format("THOUSAND_SEPARATOR", tag),
        force_grouping=True,
        use_l10n=True,
    )
    symbol = CURRENCY_SYMBOLS.get(currency, currency)
    language = tag.split("-")[0].lower()
    if language == "en":
        return f"{symbol}{number}" if len(symbol) == 1 else f"{symbol}\u00a0{number}"
    if language == "nl":
        return f"{symbol}\u00a0{number}"
    return f"{number}\u00a0{symbol}"
