"""Validators of sites' settings, companies and domains (the operators' admin). Each
error names what is expected, translated."""

from __future__ import annotations

import base64
import binascii
import re

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator, URLValidator
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext_lazy as _

hex_colour = RegexValidator(r"^#[0-9a-fA-F]{6}$", _("Enter a colour as #rrggbb."))

# A phone number as people write it: digits with spaces, dots, dashes, brackets, an optional +.
phone_number = RegexValidator(
    r"^\+?(?=(?:\D*\d){6,20}\D*$)[0-9][0-9 ()./-]*[0-9]$",
    _("Enter a phone number of 6 to 20 digits, e.g. +31 20 123 4567."),
)

# A Twilio account SID: "AC" and 32 hexadecimal digits.
twilio_sid_format = RegexValidator(
    r"\AAC[0-9a-f]{32}\Z", _("Enter a Twilio account SID: AC and 32 characters 0-9 and a-f.")
)

# Who a text message comes from: an alphanumeric sender ID (1-11 letters, digits and
# spaces, at least one letter: what networks in most of Europe show instead of a number)
# or a number in E.164 form.
sms_sender_format = RegexValidator(
    r"\A(?:(?=[A-Za-z0-9 ]{1,11}\Z)(?=.*[A-Za-z])[A-Za-z0-9](?:[A-Za-z0-9 ]*[A-Za-z0-9])?|\+[1-9][0-9]{6,14})\Z",
    _("Enter up to 11 letters, digits and spaces with at least one letter, or a number such as +31612345678."),
)

vat_number = RegexValidator(
    r"^[A-Z]{2}[0-9A-Z+*.]{2,13}$",
    _("Enter a VAT number: the country's two capital letters and 2 to 13 letters or digits, e.g. NL123456789B01."),
)

# A host name of a site: lower-case labels of letters, digits and dashes, no port.
_HOST_LABEL = r"(?!-)[a-z0-9-]{1,63}(?<!-)"
hostname = RegexValidator(
    rf"^(?=.{{1,253}}$){_HOST_LABEL}(\.{_HOST_LABEL})*$",
    _("Enter a host name in lower case without http:// or a port, e.g. www.example.com."),
)


@deconstructible
class OneLine:
    """Text on one line, without control characters (it lands in page titles and mail
    headers)."""

    message = _("Use one line of text without control characters.")
    code = "one_line"

    def __call__(self, value: str) -> None:
        if value and any(ord(char) < 32 or ord(char) == 127 for char in value):
            raise ValidationError(self.message, code=self.code)

    def __eq__(self, other) -> bool:
        return isinstance(other, OneLine)


one_line = OneLine()


@deconstructible
class HttpsUrl:
    """An https:// address (a CDN in front of the site's files)."""

    message = _("Enter an https:// address, e.g. https://cdn.example.com/site, or leave it empty.")
    code = "https_url"

    def __call__(self, value: str) -> None:
        if not value:
            return
        try:
            URLValidator(schemes=["https"])(value)
        except ValidationError as error:
            raise ValidationError(self.message, code=self.code) from error
        if "?" in value or "#" in value:
            raise ValidationError(self.message, code=self.code)

    def __eq__(self, other) -> bool:
        return isinstance(other, HttpsUrl)


https_url = HttpsUrl()


# The order of the P-256 group: a private key is a number from 1 to this minus one.
_P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def _b64url(value: str) -> bytes | None:
    """The bytes of a base64url text (padding optional); None when it is not one."""
    if not value or not re.fullmatch(r"[A-Za-z0-9_-]+={0,2}", value):
        return None
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None


def vapid_public_key(value: str) -> None:
    """A web push (VAPID) public key: an uncompressed P-256 point, base64url."""
    raw = _b64url(value)
    if raw is None or len(raw) != 65 or raw[0] != 4:
        raise ValidationError(
            _("Enter the public key as web push expects it: 87 characters of base64url (a P-256 point)."),
            code="vapid_public_key",
        )


def vapid_private_key(value: str) -> None:
    """A web push (VAPID) private key: 32 bytes, base64url, a number the curve accepts."""
    raw = _b64url(value)
    if raw is None or len(raw) != 32 or not 0 < int.from_bytes(raw, "big") < _P256_ORDER:
        raise ValidationError(
            _("Enter the private key as web push expects it: 43 characters of base64url (32 bytes)."),
            code="vapid_private_key",
        )
