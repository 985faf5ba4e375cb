"""The WebSocket side of each site (`/ws/` on the site's host).

Order of the checks for a new socket (config/asgi.py):
1. SameOriginValidator: the Origin header must name the very host the socket is opened
   on. Channels' AllowedHostsOriginValidator would let any origin through, as
   ALLOWED_HOSTS is "*" (the site middleware checks hosts against the sites' domains).
2. SiteSessionMiddleware: the site from the Host header (the same lookup and cache as
   apps.tenants.middleware), then the member from the session cookie, read in that
   site's schema: sessions and accounts live there. Channels' AuthMiddlewareStack
   would read them in whatever schema the worker thread was left in. The handshakes
   that arrive together are checked together (apps.chat.batching: one thread hop and two
   queries per site for a batch), so a crowd reconnecting at once does not queue
   behind one database thread three queries at a time.
3. The consumer refuses visitors (apps.chat.consumers)."""

from __future__ import annotations

import copy
from urllib.parse import urlparse

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http.cookie import parse_cookie
from django.urls import path

from apps.chat.batching import LoopBatcher
from apps.chat.consumers import MemberConsumer, sessions_members


def _header(scope, name: bytes) -> str:
    for key, value in scope.get("headers") or []:
        if key == name:
            return value.decode("latin1")
    return ""


def _hostname(host: str) -> str:
    """ "Example.com:8000" -> "example.com"; "" for anything unusable."""
    if not host or host.startswith("["):
        return ""
    return host.split(":")[0].lower().rstrip(".")


class SameOriginValidator:
    """Refuse a socket whose page is not on the socket's own host (cross-site
    WebSocket hijacking: the browser sends the session cookie along)."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        host = _hostname(_header(scope, b"host"))
        origin = _header(scope, b"origin")
        try:
            origin_host = (urlparse(origin).hostname or "") if origin else ""
        except ValueError:
            origin_host = ""
        if not host or origin_host.rstrip(".") != host:
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


def _sites_and_members(lookups: list[tuple[str, str | None]]) -> list[tuple]:
    """(site, member, session expiry) for each (hostname, session key): the sites from
    their cache, then each site's sessions and members in two queries (sessions_members)."""
    from apps.tenants.middleware import site_for_host

    sites: dict[str, object] = {}
    for hostname, _key in lookups:
        if hostname not in sites:
            site = site_for_host(hostname) if hostname else None
            # A switched-off site takes no live connection.
            sites[hostname] = site if site is not None and site.is_active else None
    keys: dict[int, tuple[object, list[str]]] = {}
    for hostname, key in lookups:
        site = sites[hostname]
        if site is not None and key:
            keys.setdefault(site.pk, (site, []))[1].append(key)
    members = {pk: sessions_members(site, site_keys) for pk, (site, site_keys) in keys.items()}
    results = []
    for hostname, key in lookups:
        site = sites[hostname]
        if site is None:
            results.append((None, AnonymousUser(), None))
            continue
        user, expires = members[site.pk][key] if key else (AnonymousUser(), None)
        # A copy per socket: domain_url is this host's (a site may have several).
        site = copy.copy(site)
        site.domain_url = hostname
        results.append((site, user, expires))
    return results


# The handshakes that arrive together on one event loop are checked together: one thread
# hop and two queries per site for a batch of at most 200 (apps.chat.batching). One at a
# time, each handshake waited for three queries in the one thread that runs the sockets'
# database calls, and 5,000 members reconnecting to a process after a deploy waited for
# each other for a minute (bench "scale"). Looked up by name at each batch, so that a
# test can count the batches.
_site_and_member_batch = LoopBatcher(lambda lookups: _sites_and_members(lookups), size=200, name="sessions of sockets")


async def _site_and_member(hostname: str, session_key: str | None) -> tuple:
    return await _site_and_member_batch((hostname, session_key))


class SiteSessionMiddleware:
    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        cookies = parse_cookie(_header(scope, b"cookie"))
        hostname = _hostname(_header(scope, b"host"))
        session_key = cookies.get(settings.SESSION_COOKIE_NAME)
        site, user, expires = await _site_and_member(hostname, session_key)
        scope = {**scope, "site": site, "user": user, "session_key": session_key, "session_expires": expires}
        return await self.application(scope, receive, send)


websocket_urlpatterns = [path("ws/", MemberConsumer.as_asgi())]
