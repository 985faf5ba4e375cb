"""The WebSocket side of each site (`/ws/` on the site's host).

Order of the checks for a new socket (config/asgi.py):
1. SameOriginValidator: the Origin header must name the very host the socket is opened
   on. Channels' AllowedHostsOriginValidator would let any origin through, as
   ALLOWED_HOSTS is "*" (the site middleware checks hosts against the sites' domains).
2. SiteSessionMiddleware: the site from the Host header (the same lookup and cache as
   apps.tenants.middleware), then the member from the session cookie, read in that
   site's schema: sessions and accounts live there. Channels' AuthMiddlewareStack
   would read them in whatever schema the worker thread was left in.
3. The consumer refuses visitors (apps.chat.consumers)."""

from __future__ import annotations

from urllib.parse import urlparse

from channels.db import database_sync_to_async
from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http.cookie import parse_cookie
from django.urls import path

from apps.chat.consumers import MemberConsumer, session_member


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


@database_sync_to_async
def _site_and_member(hostname: str, session_key: str | None):
    from apps.tenants.middleware import site_for_host

    site = site_for_host(hostname) if hostname else None
    if site is None or not site.is_active:  # a switched-off site takes no live connection
        return None, AnonymousUser(), None
    site.domain_url = hostname
    return site, *session_member(site, session_key)


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
