from django.urls import path

from apps.accounts import views

urlpatterns = [
    path("activate", views.activate, name="activate"),
    path("activate/done", views.activate_done, name="activate-done"),
    path("activate/error", views.activate_error, name="activate-error"),
]
