from django.urls import path  # noqa: F401 - the profile calls add their paths here

urlpatterns: list = []
