"""URLs of the operators' host (public schema): the admin and the health check."""

from django.contrib import admin
from django.urls import path
from django.views.generic import RedirectView

from apps.common import views as common_views
from apps.notifications.webhooks import mail_events

urlpatterns = [
    path("healthz", common_views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    # The mail provider's bounce and complaint reports (apps.notifications.webhooks).
    path("hooks/mail", mail_events, name="mail-events"),
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
]

handler404 = "apps.common.views.page_not_found"
handler500 = "apps.common.views.server_error"
