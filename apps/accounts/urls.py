from django.urls import path

from apps.accounts import views

urlpatterns = [
    path("activate", views.activate, name="activate"),
    path("activate/done", views.activate_done, name="activate-done"),
    path("activate/error", views.activate_error, name="activate-error"),
    path("login", views.login_view, name="login"),
    path("logout", views.logout_view, name="logout"),
    path("reset-password", views.password_reset_request_view, name="reset-password"),
    path("reset-password/do", views.password_reset_do_view, name="reset-password-do"),
]
