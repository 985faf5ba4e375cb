"""URLs of the payments app (SMS direct debit, spec §2 directdebit). Included by config/urls.py."""

from django.urls import path

from apps.payments import views_directdebit

urlpatterns = [
    path("directdebit", views_directdebit.directdebit_page, name="directdebit"),
    path("directdebit/<int:request_id>/code", views_directdebit.directdebit_code_page, name="directdebit-code"),
    path("directdebit/<int:request_id>/resend", views_directdebit.directdebit_resend, name="directdebit-resend"),
]
