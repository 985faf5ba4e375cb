"""URLs of the payments app (gateway): the payment webhook and the sandbox's hosted
checkout. Included by config/urls.py."""

from django.urls import path

from apps.payments import views_gateway

urlpatterns = [
    path("api/payment-webhook.php", views_gateway.payment_webhook, name="payment-webhook"),
    path("sandbox/checkout/<str:provider_id>", views_gateway.sandbox_checkout, name="sandbox-checkout"),
]
