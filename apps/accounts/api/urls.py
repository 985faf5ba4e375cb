from django.urls import path

from apps.accounts.api import views

urlpatterns = [
    path("user.php", views.UserApi.as_view(), name="api-user"),
    path("logout.php", views.LogoutApi.as_view(), name="api-logout"),
    path("signup.php", views.SignupApi.as_view(), name="api-signup"),
    path("signup/resend.php", views.ResendConfirmationApi.as_view(), name="api-signup-resend"),
]
