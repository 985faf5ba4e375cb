from django.urls import path  # noqa: F401 - the likes pages add their paths here

urlpatterns: list = []
