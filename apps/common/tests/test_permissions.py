"""The login guard of the API: one permission (MemberRequired) on the member-only views,
and the visitor's 403 body written once, by the exception handler."""

from __future__ import annotations

import ast
from pathlib import Path

from django.contrib.auth.models import AnonymousUser
from django.utils.translation import gettext_lazy
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory, force_authenticate
from rest_framework.views import APIView

from apps.common.api.permissions import MemberRequired

APPS = Path(__file__).resolve().parents[2]


class _Member:
    is_authenticated = True


class _GuardedView(APIView):
    permission_classes = [MemberRequired]
    calls: list[str] = []

    def get(self, request):
        self.calls.append("get")
        return Response({"ok": True})


class _AskingView(_GuardedView):
    login_message = gettext_lazy("Log in or sign up to chat.")


def _call(view, user):
    # Forced authentication counts as an authenticator that succeeded, so DRF alone
    # would answer the visitor with a PermissionDenied: the permission raises the 403.
    request = APIRequestFactory().get("/api/guarded")
    force_authenticate(request, user=user)
    return view.as_view()(request)


def test_a_visitor_gets_the_403_body_and_the_view_does_not_run():
    _GuardedView.calls.clear()
    response = _call(_GuardedView, AnonymousUser())
    assert response.status_code == 403
    assert response.data == {"error": {"code": "authentication_required", "message": "Please log in to continue."}}
    assert _GuardedView.calls == []


def test_a_view_names_what_the_visitor_is_asked():
    response = _call(_AskingView, AnonymousUser())
    assert response.status_code == 403
    assert response.data["error"] == {"code": "authentication_required", "message": "Log in or sign up to chat."}


def test_a_member_reaches_the_view():
    _GuardedView.calls.clear()
    response = _call(_GuardedView, _Member())
    assert response.status_code == 200 and _GuardedView.calls == ["get"]


def _checks_login_by_hand(tree: ast.Module) -> list[int]:
    """Lines of an API module that build the visitor's body themselves: the error code
    "authentication_required" as a string, or a handler testing `is_authenticated`."""
    lines = []
    for node in ast.walk(tree):
        code = isinstance(node, ast.Constant) and node.value == "authentication_required"
        if code or (isinstance(node, ast.Attribute) and node.attr == "is_authenticated"):
            lines.append(node.lineno)
    return lines


def test_no_api_view_writes_the_login_guard_itself():
    modules = sorted(path for path in APPS.glob("*/api/*.py") if path.name not in ("__init__.py", "permissions.py"))
    assert len(modules) >= 10
    by_hand = {
        str(path.relative_to(APPS)): lines
        for path in modules
        if (lines := _checks_login_by_hand(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert by_hand == {}


def test_the_check_sees_a_guard_written_by_hand():
    source = (
        'def get(request):\n    if not request.user.is_authenticated:\n        raise E("authentication_required")\n'
    )
    assert sorted(_checks_login_by_hand(ast.parse(source))) == [2, 3]
