"""URLs of the payments app (discounts). Included by config/urls.py."""

from django.urls import path

from apps.payments.api.discounts import DiscountCodeApi, TimeBonusApi

urlpatterns = [
    path("api/discountcode.php", DiscountCodeApi.as_view(), name="api-discountcode"),
    path("api/timebonus.php", TimeBonusApi.as_view(), name="api-timebonus"),
]
