"""Talking to the live ASGI test server (conftest `asgi_server`) without a browser: data
it must see is written in a thread of its own and committed, and requests go to the
loopback address with the site's host in the Host header."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote, urlsplit, urlunsplit

import httpx
from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import connection, transaction
from django.db.models import Q
from django.test import Client

from apps.accounts.models import User
from apps.accounts.services.directory import directory_remove
from apps.chat.models import Conversation
from apps.profiles.models import Complaint
from conftest import on_site


def until(predicate, what: str, seconds: float = 90):
    """Waits for a state (a file, a row, a process's answer) within a generous deadline
    for a busy machine; no fixed sleeps. Returns the predicate's value."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def database_url_for_tests() -> str:
    """DATABASE_URL naming the test database and the role the tests serve as: for
    processes the tests start."""
    parts = urlsplit(settings.DATABASE_URL)
    params = connection.settings_dict
    login = quote(params["USER"], safe="")
    if params.get("PASSWORD"):
        login += ":" + quote(params["PASSWORD"], safe="")
    server = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{login}@{server}", path="/" + params["NAME"]))


def in_thread(func, *args, **kwargs):
    """Run `func` on a connection of its own (autocommit: its writes are committed)."""

    def run():
        try:
            return func(*args, **kwargs)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


class Committed:
    """Members made with committed rows; everything they made is deleted afterwards."""

    def __init__(self) -> None:
        self.made: list[tuple[object, int]] = []
        self.sessions: list[tuple[object, str]] = []

    def member(self, site, prefix: str, **kwargs):
        from apps.profiles.tests.helpers_view import member

        profile = in_thread(member, site, f"{prefix}{uuid.uuid4().hex[:8]}", **kwargs)
        self.made.append((site, profile.user_id))
        return profile

    def session(self, site, user) -> str:
        """A logged-in session of `user` on `site` (stored in the site's schema): the
        value of the session cookie."""

        def login():
            client = Client(HTTP_HOST=site.domains.get(is_primary=True).domain)
            with on_site(site):
                client.force_login(user, backend="allauth.account.auth_backends.AuthenticationBackend")
            return client.cookies[settings.SESSION_COOKIE_NAME].value

        key = in_thread(login)
        self.sessions.append((site, key))
        return key

    def cleanup(self) -> None:
        def delete():
            for site, key in self.sessions:
                with on_site(site):
                    Session.objects.filter(session_key=key).delete()

        in_thread(delete)
        members_delete(self.made)


def members_delete(made: list[tuple[object, int]]) -> None:
    """Delete committed members, given as (site, user id), with their conversations and
    their row in the public schema's directory, on a connection of their own."""

    def delete():
        for site, user_id in made:
            # The rows are locked before they are read for the cascade: a late write of
            # the test's own page (a message it sent as it closed) waits, then fails,
            # instead of adding a row the cascade did not see.
            with on_site(site), transaction.atomic():
                list(User.objects.select_for_update().filter(pk=user_id).values_list("pk"))
                # Support keeps complaints when their members leave; a test's go with them.
                Complaint.objects.filter(Q(reporter_id=user_id) | Q(profile__user_id=user_id)).delete()
                conversations = Conversation.objects.filter(participants__user_id=user_id)
                Conversation.objects.filter(
                    pk__in=list(conversations.select_for_update().values_list("pk", flat=True))
                ).delete()
                User.objects.filter(pk=user_id).delete()
            directory_remove(site_id=site.pk, member_id=user_id)  # the public schema's row

    in_thread(delete)


def client(server, host: str = "localhost", session: str | None = None) -> httpx.Client:
    """An HTTP client for one site's host on the live server."""
    cookies = {settings.SESSION_COOKIE_NAME: session} if session else {}
    return httpx.Client(
        base_url=f"http://127.0.0.1:{server.port}",
        headers={"Host": f"{host}:{server.port}"},
        cookies=cookies,
        follow_redirects=False,
        timeout=30,
    )
