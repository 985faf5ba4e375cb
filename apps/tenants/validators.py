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


def _b64url(value: str) -> bytes | None:
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None


def vapid_public_key(value: str) -> None:
    """A web push (VAPID) public key: an uncompressed P-256 point, base64url."""
    raw = _b64url(value) if value and re.fullmatch(r"[A-Za-z0-9_-]+={0,2}", value) else None
    if raw is None or len(raw) != 65 or raw[0] != 4:
        raise ValidationError(
            _("Enter the public key as web push expects it: 87 characters of base64url (a P-256 point)."),
            code="vapid_public_key",
        )


def vapid_private_key(value: str) -> None:
    """A web push (VAPID) private key: 32 bytes, base64url."""
    raw = _b64url(value) if value and re.fullmatch(r"[A-Za-z0-9_-]+={0,2}", value) else None
    if raw is None or len(raw) != 32:
        raise ValidationError(
            _("Enter the private key as web push expects it: 43 characters of base64url (32 bytes)."),
            code="vapid_private_key",
        )


def vapid_public_key_of(private_key: str) -> str | None:
    """The base64url public key (no padding) of a base64url VAPID private key."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    raw = _b64url(private_key)
    if raw is None or len(raw) != 32:
        return None
    key = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(point).decode().rstrip("=")
