"""The session engine (settings.SESSION_ENGINE): Django's database sessions, read with one
statement compiled once per process.

Every member request reads its session. Django's store builds and compiles
`Session.objects.get(session_key=..., expire_date__gt=now)` anew each time, which cost more
than the statement's round trip. Here the same read is a `PreparedQuery`: the same table in
the site's schema (sessions stay per site), the same rule that an expired session is not
read (it is a new, empty session, as with Django's), the same decoding and checks of the
signed data. Nothing is kept between requests: a session ended (logged out, "log out on
all devices", the account deleted) is gone with its row, at once. Writes (a modified
session, a new key, a deletion) are Django's own."""

from __future__ import annotations

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.utils import timezone

from apps.common.prepared import PreparedQuery

_SESSION_DATA = PreparedQuery(
    lambda session_key, now: Session.objects.filter(session_key=session_key, expire_date__gt=now).values_list(
        "session_data"
    ),
    server=True,
)


def session_data(session_key: str) -> str | None:
    """The signed data of the session with this key when it has not expired, else None."""
    rows = _SESSION_DATA.rows(session_key=session_key, now=timezone.now())
    return rows[0][0] if rows else None


class SessionStore(db.SessionStore):
    @classmethod
    def get_model_class(cls):
        return Session

    def load(self) -> dict:
        key = self.session_key  # None or a valid key (SessionBase checks its form)
        data = session_data(key) if key is not None else None
        if data is None:
            self._session_key = None
            return {}
        return self.decode(data)
