"""URLs of the operators' host (public schema): the admin, the health check, the mail and
SMS providers' reports and the TLS proxy's question."""

from django.contrib import admin
from django.urls import path
from django.views.generic import RedirectView

from apps.common import views as common_views
from apps.conversions.views import reports_view
from apps.notifications.webhooks import mail_events
from apps.payments.views_sms import twilio_status
from apps.tenants.views import tls_ask

urlpatterns = [
    path("healthz", common_views.healthz, name="healthz"),
    # The revenue dashboard (apps.conversions.views), behind the admin's login.
    path("admin/reports/", admin.site.admin_view(reports_view), name="reports"),
    path("admin/", admin.site.urls),
    # The mail provider's bounce and complaint reports (apps.notifications.webhooks).
    path("hooks/mail", mail_events, name="mail-events"),
    # The SMS provider's delivery receipts of a site's messages (apps.payments.views_sms).
    path("hooks/sms/twilio/<str:schema>", twilio_status, name="sms-status"),
    # The TLS proxy's question before it gets a certificate (apps.tenants.tls).
    path("tls/ask", tls_ask, name="tls-ask"),
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
]

handler404 = "apps.common.views.page_not_found"
handler500 = "apps.common.views.server_error"
