"""The member of a request, read from the session (settings.MIDDLEWARE's
`AuthenticationMiddleware`, the chat's sockets).

Django's `get_user` asks the session's backend for the user; `ModelBackend.get_user` (and
allauth's backend, which keeps it) builds and compiles `User.objects.get(pk=...)` on every
request. `get_user` below is Django's, line for line, but for that read: the same
statement as a `PreparedQuery`, compiled once per process. Every check stays: the backend
named in the session must be one of AUTHENTICATION_BACKENDS, the account must be allowed to
log in (`user_can_authenticate`: active), and the session's hash of the password must match
(else of a fallback secret's, and the session gets a new key; else the session is flushed:
a member whose password changed is logged out). A backend with a `get_user` of its own is
asked as Django asks it."""

from __future__ import annotations

from functools import partial

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, load_backend
from django.contrib.auth import middleware as auth_middleware
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import AnonymousUser
from django.utils.crypto import constant_time_compare
from django.utils.functional import SimpleLazyObject

from apps.accounts.models import User
from apps.common.prepared import PreparedQuery

_USER = PreparedQuery(lambda pk: User._default_manager.filter(pk=pk).order_by(), server=True)


def backend_user(backend, user_id):
    """What `backend.get_user(user_id)` gives, with ModelBackend's read prepared."""
    if type(backend).get_user is not ModelBackend.get_user or type(user_id) is not int:
        return backend.get_user(user_id)
    rows = _USER.objects(pk=user_id)
    user = rows[0] if rows else None
    return user if user is not None and backend.user_can_authenticate(user) else None


def get_user(request):
    """django.contrib.auth.get_user (Django 5.2) with `backend_user` for the user's read."""
    user = None
    try:
        user_id = User._meta.pk.to_python(request.session[SESSION_KEY])
        backend_path = request.session[BACKEND_SESSION_KEY]
    except KeyError:
        pass
    else:
        if backend_path in settings.AUTHENTICATION_BACKENDS:
            backend = load_backend(backend_path)
            user = backend_user(backend, user_id)
            # Verify the session
            if hasattr(user, "get_session_auth_hash"):
                session_hash = request.session.get(HASH_SESSION_KEY)
                if not session_hash:
                    session_hash_verified = False
                else:
                    session_auth_hash = user.get_session_auth_hash()
                    session_hash_verified = constant_time_compare(session_hash, session_auth_hash)
                if not session_hash_verified:
                    # A session made with a fallback secret gets a new key and the current
                    # secret's hash; any other is ended.
                    if session_hash and any(
                        constant_time_compare(session_hash, fallback_auth_hash)
                        for fallback_auth_hash in user.get_session_auth_fallback_hash()
                    ):
                        request.session.cycle_key()
                        request.session[HASH_SESSION_KEY] = session_auth_hash
                    else:
                        request.session.flush()
                        user = None
    return user or AnonymousUser()


def _cached_user(request):
    if not hasattr(request, "_cached_user"):
        request._cached_user = get_user(request)
    return request._cached_user


class AuthenticationMiddleware(auth_middleware.AuthenticationMiddleware):
    """Django's, with `get_user` above for `request.user` (`request.auser` is Django's)."""

    def process_request(self, request):
        super().process_request(request)
        request.user = SimpleLazyObject(partial(_cached_user, request))
