"""URLs of every site (tenant schemas)."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from apps.common import views as common_views
from apps.landers.urls import token_urlpatterns

urlpatterns = [
    path("healthz", common_views.healthz, name="healthz"),
    path("api/", include("apps.tenants.api.urls")),
    path("api/", include("apps.accounts.api.urls")),
    path("api/", include("apps.profiles.api.urls")),
    path("api/", include("apps.likes.api.urls")),
    path("api/", include("apps.chat.api.urls")),
    path("", include("apps.payments.urls_gateway")),
    path("", include("apps.payments.urls_discounts")),
    path("", include("apps.payments.urls_credits")),
    path("", include("apps.payments.urls_pages")),
    path("", include("apps.payments.urls_directdebit")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("", include("apps.accounts.urls")),
    path("", include("apps.accounts.urls_signup")),
    path("", include("apps.accounts.urls_settings")),
    path("", include("apps.likes.urls")),
    path("", include("apps.chat.urls")),
    path("", include("apps.profiles.urls")),
    path("", include("apps.pages.urls")),
    path("", include("apps.landers.urls")),
    # Last: the operators' site pages at /<token> (spec §2 {token}) may not shadow a route.
    *token_urlpatterns,
]

# No catch-all media route, not even with DEBUG: every media file is served by a view that
# checks the site and the member (profile photos, chat photos, gift pictures), in
# development as in production without a CDN.

handler400 = "apps.common.views.bad_request"
handler403 = "apps.common.views.permission_denied"
handler404 = "apps.common.views.page_not_found"
handler500 = "apps.common.views.server_error"
