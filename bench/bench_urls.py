"""The site URLs plus bench-only views (bench.settings): the baselines the search and
request-cycle benchmarks compare with, a bare Django view doing one primary-key query,
served through the site's middleware (bench/pk.json) and through none (bench/plain.json,
see bench/asgi.py), and the same for a logged-in member (bench/member-pk.json)."""

import os

from django.db import connection
from django.http import JsonResponse
from django.urls import path

from config.urls import urlpatterns as site_urlpatterns

BENCH_PK = 12345
# The schema bench/plain.json reads from: with no middleware nothing picks the site.
PLAIN_SCHEMA = os.environ.get("BENCH_PLAIN_SCHEMA", "")


def _profile_row() -> dict | None:
    from apps.profiles.models import Profile

    return Profile.objects.filter(pk=BENCH_PK).values("id", "name", "country", "created").first()


def profile_by_pk(request):
    """One indexed primary-key read, serialised with JsonResponse: what the cheapest
    useful API view costs on this stack (middleware, tenant lookup, one query)."""
    return JsonResponse({"profile": _profile_row()})


def profile_by_pk_member(request):
    """The same read for a logged-in member: the session and the account are read too,
    as on every member request (403 without a session)."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "authentication_required"}, status=403)
    return JsonResponse({"profile": _profile_row(), "member": request.user.pk})


def profile_by_pk_plain(request):
    """The same read with the schema set by hand, for the handler without middleware."""
    connection.set_schema(PLAIN_SCHEMA)
    return JsonResponse({"profile": _profile_row()})


urlpatterns = [
    path("bench/pk.json", profile_by_pk, name="bench-pk"),
    path("bench/plain.json", profile_by_pk_plain, name="bench-plain"),
    path("bench/member-pk.json", profile_by_pk_member, name="bench-member-pk"),
    *site_urlpatterns,
]

handler400 = "apps.common.views.bad_request"
handler403 = "apps.common.views.permission_denied"
handler404 = "apps.common.views.page_not_found"
handler500 = "apps.common.views.server_error"
