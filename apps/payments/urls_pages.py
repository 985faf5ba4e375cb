"""URLs of the payments app (pages). Included by config/urls.py."""

from django.urls import path

from apps.payments import views_pages

urlpatterns = [
    path("premium", views_pages.premium_page, name="premium"),
    path("pricing", views_pages.pricing_page, name="pricing"),
    # Spec §2 "transactions-id: /transactions/{id} (id optional)": the list without one.
    path("transactions", views_pages.transactions_page, name="transactions-id"),
    path("transactions/<str:id>", views_pages.transactions_page, name="transactions-id"),
    path("transactions/<str:id>/refund", views_pages.transaction_refund, name="transactions-id-refund"),
]
