"""The API's JSON parser: DRF's, refusing what PostgreSQL or Python would only refuse later
with a 500: a NUL character or a lone surrogate in any string or key, and nesting deeper
than any call of the API takes (Python's parser gives up with a RecursionError)."""

from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

# No call of the API takes more than a few levels (a list of ids in an object).
MAX_DEPTH = 16


def unreadable() -> ParseError:
    return ParseError(_("This request could not be read."))


def not_allowed_characters() -> ParseError:
    return ParseError(_("This request contains characters that are not allowed."))


def _check_text(text: str) -> None:
    if "\x00" in text:
        raise not_allowed_characters()
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:  # a lone surrogate such as "\ud800"
        raise not_allowed_characters() from error


def json_check(value, depth: int = 0) -> None:
    """Raise ParseError for text no column can store or nesting past MAX_DEPTH."""
    if depth > MAX_DEPTH:
        raise unreadable()
    if isinstance(value, str):
        _check_text(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key)
            json_check(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            json_check(item, depth + 1)


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise unreadable() from error
        except ParseError as error:
            raise unreadable() from error
        json_check(data)
        return data
