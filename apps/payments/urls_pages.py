"""URLs of the payments app (pages). Included by config/urls.py."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
