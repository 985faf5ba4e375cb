"""The session and the member of a request, each read by one statement compiled once
(apps.common.sessions, apps.accounts.authentication), with every check of Django's: the
session of its own site only, not expired, not ended, the backend allowed, the account
active, the password's hash matching (or a fallback secret's, then a new key)."""

from datetime import timedelta
from importlib import import_module

import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import RequestFactory, override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts import authentication
from apps.accounts.models import User
from apps.accounts.services.deletion import member_sessions_end
from apps.common import sessions
from apps.profiles.tests.helpers_view import member
from conftest import on_site

pytestmark = pytest.mark.django_db

ALLAUTH = "allauth.account.auth_backends.AuthenticationBackend"
PAGE = "/api/chats.php"


def _store(session_key=None):
    return import_module(settings.SESSION_ENGINE).SessionStore(session_key)


def _logged_in(site, client_for, user=None):
    """(client, user): a member logged in on `site` through allauth's backend."""
    user = user or member(site, "Anna").user
    client = client_for(site)
    with on_site(site):
        client.force_login(user, backend=ALLAUTH)
    return client, user


def _user_of(client, path=PAGE):
    response = client.get(path)
    return response.wsgi_request.user


def _session_key(client) -> str:
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def test_the_settings_use_the_prepared_reads():
    assert settings.SESSION_ENGINE == "apps.common.sessions"
    assert "apps.accounts.authentication.AuthenticationMiddleware" in settings.MIDDLEWARE
    assert "django.contrib.auth.middleware.AuthenticationMiddleware" not in settings.MIDDLEWARE


def test_a_member_is_read_in_two_statements_the_session_and_the_account(site, client_for):
    client, user = _logged_in(site, client_for)
    key = _session_key(client)
    with on_site(site):
        request = RequestFactory().get("/")
        request.session = _store(key)
        with CaptureQueriesContext(connection) as captured:
            found = authentication.get_user(request)
        assert found == user and found.is_authenticated
        statements = [query["sql"] for query in captured if "search_path" not in query["sql"]]
        assert len(statements) == 2, statements
        assert '"django_session"' in statements[0] and '"accounts_user"' in statements[1]
        # The same again: the statements are compiled once, their values are this call's.
    other = member(site, "Ben").user
    with on_site(site):
        client.force_login(other, backend=ALLAUTH)
        request = RequestFactory().get("/")
        request.session = _store(_session_key(client))
        assert authentication.get_user(request) == other
    assert _user_of(client) == other


def test_a_session_is_of_its_own_site_only(two_sites, client_for):
    first, second = two_sites
    client, user = _logged_in(first, client_for)
    key = _session_key(client)
    with on_site(first):
        assert _store(key).load()[SESSION_KEY] == str(user.pk)
    with on_site(second):
        store = _store(key)
        assert store.load() == {}
        assert store.session_key is None
    stranger = client_for(second)
    stranger.cookies[settings.SESSION_COOKIE_NAME] = key
    assert not _user_of(stranger).is_authenticated


def test_an_expired_session_is_not_read(site, client_for):
    client, user = _logged_in(site, client_for)
    assert _user_of(client) == user
    with on_site(site):
        Session.objects.filter(session_key=_session_key(client)).update(
            expire_date=timezone.now() - timedelta(seconds=1)
        )
        assert _store(_session_key(client)).load() == {}
    assert not _user_of(client).is_authenticated


def test_an_ended_session_logs_out_on_the_next_request(site, client_for):
    """Nothing of a session is kept between requests: its row gone, it is gone."""
    client, user = _logged_in(site, client_for)
    phone, _user = _logged_in(site, client_for, user)
    assert _user_of(client) == user and _user_of(phone) == user
    client.post("/logout")
    assert not _user_of(client).is_authenticated
    assert _user_of(phone) == user
    with on_site(site):
        member_sessions_end(user_id=user.pk)
    assert not _user_of(phone).is_authenticated


def test_a_changed_password_logs_the_session_out_and_ends_it(site, client_for):
    client, user = _logged_in(site, client_for)
    key = _session_key(client)
    assert _user_of(client) == user
    with on_site(site):
        user.set_password("a-New-passphrase-42")
        user.save(update_fields=["password"])
    assert not _user_of(client).is_authenticated
    with on_site(site):
        assert not Session.objects.filter(session_key=key).exists()


def test_a_session_without_a_hash_is_ended(site, client_for):
    client, user = _logged_in(site, client_for)
    assert _user_of(client) == user
    with on_site(site):
        store = _store(_session_key(client))
        del store[HASH_SESSION_KEY]
        store.save()
    assert not _user_of(client).is_authenticated


def test_an_account_that_may_not_log_in_is_anonymous(site, client_for):
    client, user = _logged_in(site, client_for)
    with on_site(site):
        User.objects.filter(pk=user.pk).update(is_active=False)
    assert not _user_of(client).is_authenticated


def test_a_backend_no_longer_allowed_is_anonymous(site, client_for):
    client, user = _logged_in(site, client_for)
    assert _user_of(client) == user
    with on_site(site):
        store = _store(_session_key(client))
        assert store[BACKEND_SESSION_KEY] == ALLAUTH
    with override_settings(AUTHENTICATION_BACKENDS=["django.contrib.auth.backends.ModelBackend"]):
        assert not _user_of(client).is_authenticated


def test_a_session_of_a_fallback_secret_gets_a_new_key_and_stays(site, client_for):
    client, user = _logged_in(site, client_for)
    old_key = _session_key(client)
    with override_settings(SECRET_KEY="another-secret-key-" + "x" * 40, SECRET_KEY_FALLBACKS=[settings.SECRET_KEY]):
        assert _user_of(client) == user
        new_key = _session_key(client)
        assert new_key != old_key
        with on_site(site):
            fresh = User.objects.get(pk=user.pk)
            assert _store(new_key)[HASH_SESSION_KEY] == fresh.get_session_auth_hash()
            assert not Session.objects.filter(session_key=old_key).exists()
        assert _user_of(client) == user


def test_session_writes_are_kept(site, client_for):
    client, user = _logged_in(site, client_for)
    key = _session_key(client)
    with on_site(site):
        store = _store(key)
        store["seen"] = ["a", 1]
        store.save()
        assert _store(key)["seen"] == ["a", 1]
        assert sessions.session_data(key) == Session.objects.get(session_key=key).session_data
        assert sessions.session_data("x" * 32) is None
    assert _user_of(client) == user
