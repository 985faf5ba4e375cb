"""What the chat tells members' open pages (apps.chat.consumers), through the real-time
transport below the apps (apps.common.realtime): its own badges (unread messages, the
sender's balance) and the sessions its sockets belong to (a logout, a changed password,
status or active flag closes or re-checks them). Messages themselves are announced by
apps.chat.services with `event_send_on_commit`."""

from __future__ import annotations

import functools

from django.db import connection, transaction
from django_tenants.utils import get_public_schema_name

from apps.accounts.models import User
from apps.chat.selectors import unread_total
from apps.common.realtime import (
    LOGOUT_HANDLER,
    REVOKE_HANDLER,
    event_send,
    event_send_on_commit,
    group_send_on_commit,
    later,
    member_group,
    on_this_site,
    session_token,
)
from apps.tenants.current import current_site


def unread_send(*, site_id: int, user_id: int) -> None:
    """Count the member's unread messages now and send them (one query)."""
    total = unread_total(user=User(pk=user_id))
    event_send(site_id=site_id, user_id=user_id, event={"type": "badges", "unreadMessages": total})


def unread_send_on_commit(*, user_id: int | None) -> None:
    """The member's unread-messages badge alone ({"type": "badges", "unreadMessages": n};
    a page keeps the counts an event leaves out), for chat changes that move nothing else:
    counted after commit, and after the response when the view collects."""
    if not user_id:
        return
    site_id = current_site().pk
    job = on_this_site(functools.partial(unread_send, site_id=site_id, user_id=user_id))
    transaction.on_commit(lambda: later(job))


def credits_event(credits: int) -> dict:
    """The member's balance as their pages hear of it ({"type": "badges", "credits": n})."""
    return {"type": "badges", "credits": credits}


def credits_send_on_commit(*, user_id: int | None, credits: int) -> None:
    """The member's balance, known without a query, to their pages at commit."""
    event_send_on_commit(user_id=user_id, event=credits_event(credits))


def member_logged_out(sender, request, user, **kwargs) -> None:
    """`user_logged_out` receiver (connected in apps.chat.apps): the member's sockets
    opened with the session that logs out close (the member's other devices stay
    connected). Sent after commit; never raises."""
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    site = getattr(connection, "tenant", None)
    site_id = getattr(site, "pk", None)
    if user is None or not getattr(user, "pk", None) or not session_key or site_id is None:
        return
    message = {"type": LOGOUT_HANDLER, "session": session_token(session_key)}
    group_send_on_commit(member_group(site_id=site_id, user_id=user.pk), message)


def member_sockets_revoke(*, user_id: int, site_id: int | None = None) -> None:
    """Every open socket of the member checks its session again once the current
    transaction commits, and closes when the session no longer logs the member in: after
    a password change (other sessions), a deletion, a block by support, or the end of
    all the member's sessions. Never raises."""
    site_id = site_id or current_site().pk
    group_send_on_commit(member_group(site_id=site_id, user_id=user_id), {"type": REVOKE_HANDLER})


# --- Changes that end a member's sessions ----------------------------------------------

_AUTH_FIELDS = ("password", "status", "is_active")


def member_auth_remember(sender, instance, **kwargs) -> None:
    """`post_init` of User: what the sessions depend on, as loaded (deferred fields are
    left alone, so nothing is queried)."""
    instance._auth_loaded = tuple(instance.__dict__.get(name) for name in _AUTH_FIELDS)


def member_auth_changed(sender, instance, created, **kwargs) -> None:
    """`post_save` of User: a changed password, status or active flag revokes the member's
    sockets (each checks its session; the session that changed a password stays)."""
    loaded = getattr(instance, "_auth_loaded", None)
    now = tuple(instance.__dict__.get(name) for name in _AUTH_FIELDS)
    instance._auth_loaded = now
    if created or loaded is None or connection.schema_name == get_public_schema_name():
        return
    if any(old is not None and old != new for old, new in zip(loaded, now, strict=True)):
        member_sockets_revoke(user_id=instance.pk)


def member_sessions_ended(sender, user_id: int, **kwargs) -> None:
    """`apps.accounts.signals.sessions_ended` receiver."""
    member_sockets_revoke(user_id=user_id)
