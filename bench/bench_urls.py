"""The site URLs plus bench-only views (bench.settings): the baseline the search
benchmark compares with, a bare Django view doing one primary-key query."""

from django.http import JsonResponse
from django.urls import path

from config.urls import urlpatterns as site_urlpatterns

BENCH_PK = 12345


def profile_by_pk(request):
    """One indexed primary-key read, serialised with JsonResponse: what the cheapest
    useful API view costs on this stack (middleware, tenant lookup, one query)."""
    from apps.profiles.models import Profile

    row = Profile.objects.filter(pk=BENCH_PK).values("id", "name", "country", "created").first()
    return JsonResponse({"profile": row})


urlpatterns = [path("bench/pk.json", profile_by_pk, name="bench-pk"), *site_urlpatterns]

handler400 = "apps.common.views.bad_request"
handler403 = "apps.common.views.permission_denied"
handler404 = "apps.common.views.page_not_found"
handler500 = "apps.common.views.server_error"
