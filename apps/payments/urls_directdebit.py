"""URLs of the payments app (directdebit). Included by config/urls.py."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
