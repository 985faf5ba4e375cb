"""Postback URL templates: the macros a partner's URL may carry, the check of a template
when an operator saves it, and filling one in (each value percent-encoded as a whole, so
a tracking parameter's `&`, `#`, `/` or `?` stays inside its own query value)."""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

from apps.common.outbound import url_refusal

URL_MAX_LENGTH = 2000
TRACKING_MACROS = ("ref", "sub", "sub1", "sub2", "sub3", "aff_sub", "aff_sub1", "aff_sub2", "aff_sub3", "cpc")
MACROS = (*TRACKING_MACROS, "event", "amount", "currency", "payout", "site", "lander", "campaign", "member")
_BRACES = re.compile(r"\{([^{}]*)\}")


def template_errors(template: str) -> list[str]:
    """What is wrong with a postback URL template, as texts for the admin ([] if nothing)."""
    errors = []
    unknown = sorted({name for name in _BRACES.findall(template) if name not in MACROS})
    if unknown:
        errors.append(
            _("Unknown macros: %(names)s. Known: %(known)s.")
            % {"names": ", ".join(f"{{{name}}}" for name in unknown), "known": " ".join(f"{{{m}}}" for m in MACROS)}
        )
    if "{" in _BRACES.sub("", template) or "}" in _BRACES.sub("", template):
        errors.append(_("A brace that opens no macro."))
    try:
        parts = urlsplit(template)
    except ValueError:
        parts = None
    if parts is None or "{" in parts.scheme + parts.netloc:
        errors.append(_("The address must name its host; a macro may only fill the path or the query."))
    sample = _BRACES.sub("x", template)
    if url_refusal(sample, checked=settings.POSTBACK_URL_CHECK, max_length=URL_MAX_LENGTH):
        errors.append(_("Only https addresses on the standard port of a public host are allowed."))
    return errors


def render(template: str, values: dict[str, str]) -> str:
    """The template with each macro replaced by its value, percent-encoded."""
    return _BRACES.sub(lambda match: quote(str(values.get(match.group(1), "")), safe=""), template)
