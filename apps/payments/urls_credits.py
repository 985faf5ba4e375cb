"""URLs of the payments app (credits). Included by config/urls.py."""

from django.urls import path

from apps.payments import views_credits
from apps.payments.api.payment import PaymentApi

urlpatterns = [
    path("credits", views_credits.credits_page, name="credits"),
    path("credits/repeat-order", views_credits.repeat_order_page, name="credits-repeat-order"),
    # Spec §2 "credits-id-paymentmethod: /credits/{id}/{paymentmethod} (paymentmethod optional)".
    path("credits/<int:id>", views_credits.checkout_page, name="credits-id-paymentmethod"),
    path("credits/<int:id>/<slug:paymentmethod>", views_credits.checkout_page, name="credits-id-paymentmethod"),
    path("api/payment.php", PaymentApi.as_view(), name="api-payment"),
]
