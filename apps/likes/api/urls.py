from django.urls import path  # noqa: F401 - the likes calls add their paths here

urlpatterns: list = []
