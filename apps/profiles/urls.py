from django.urls import path  # noqa: F401 - the profile pages add their paths here

urlpatterns: list = []
