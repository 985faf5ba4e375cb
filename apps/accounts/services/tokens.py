"""Signed links in e-mails (change address, check address, unsubscribe, reactivate).

Each token names its purpose (the signing salt), the member and the site's schema: a
member id means another person on another site, so a token only works in the schema it
was made in. Whether a token can be used twice is up to the service that reads it."""

from django.core import signing
from django.db import connection

SALT_PREFIX = "apps.accounts.tokens"


def member_token_make(*, purpose: str, member_id: int, **data) -> str:
    payload = {"m": member_id, "s": connection.schema_name, **data}
    return signing.dumps(payload, salt=f"{SALT_PREFIX}.{purpose}", compress=True)


def member_token_read(*, purpose: str, token: str, max_age: int | None = None) -> dict | None:
    """The payload, or None when the token is forged, expired, of another purpose or
    of another site."""
    try:
        payload = signing.loads(token or "", salt=f"{SALT_PREFIX}.{purpose}", max_age=max_age)
    except signing.BadSignature:  # SignatureExpired is a BadSignature
        return None
    if not isinstance(payload, dict) or payload.get("s") != connection.schema_name:
        return None
    if not isinstance(payload.get("m"), int):
        return None
    return payload
