"""URLs of the payments app (credits). Included by config/urls.py."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
