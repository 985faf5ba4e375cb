"""The member's time zone: the browser's, kept on the account (User.time_zone), so pages,
mails and pushes show dates and times as the member's clock does.

The member's pages write the browser's IANA name into a cookie (static_src/base/member.ts);
`MemberTimeZoneMiddleware` takes it when it names a real zone, keeps it on the account when
it changed (mails and pushes are sent without a browser) and activates the member's zone for
the request. Visitors' pages stay in UTC: they are stored by the page cache for everyone."""

from __future__ import annotations

import zoneinfo
from datetime import UTC, tzinfo
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from apps.accounts.models import User

COOKIE = f"{settings.COOKIE_PREFIX}tz"
NAME_MAX_LENGTH = 64  # User.time_zone; the longest IANA name is 32


def time_zone_keep(*, user: User, name: str) -> None:
    """Keep the browser's time zone on the account (a name `time_zone_name` checked), for
    the mails and pushes sent without a browser."""
    user.time_zone = name
    User.objects.filter(pk=user.pk).update(time_zone=name)


@lru_cache(maxsize=1)
def _known() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def time_zone_name(value: str | None) -> str:
    """`value` when it is a known IANA zone name, "" otherwise (anything a cookie holds)."""
    if not value or len(value) > NAME_MAX_LENGTH or value not in _known():
        return ""
    return value


def member_zone(user) -> tzinfo:
    """The zone the member's dates are shown in: the kept one, UTC without it."""
    name = time_zone_name(getattr(user, "time_zone", ""))
    return zoneinfo.ZoneInfo(name) if name else UTC


class MemberTimeZoneMiddleware:
    """After authentication: a member's pages in the member's zone (module docstring)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        # Without a session cookie nobody is logged in: the user is not even looked up.
        if settings.SESSION_COOKIE_NAME not in request.COOKIES or user is None or not user.is_authenticated:
            return self.get_response(request)
        reported = time_zone_name(request.COOKIES.get(COOKIE))
        if reported and reported != user.time_zone:
            time_zone_keep(user=user, name=reported)
        with timezone.override(member_zone(user)):
            return self.get_response(request)
