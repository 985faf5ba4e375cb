from django.urls import path

from apps.accounts.api import signup_steps, views

urlpatterns = [
    path("user.php", views.UserApi.as_view(), name="api-user"),
    path("logout.php", views.LogoutApi.as_view(), name="api-logout"),
    path("signup.php", views.SignupApi.as_view(), name="api-signup"),
    path("signup/resend.php", views.ResendConfirmationApi.as_view(), name="api-signup-resend"),
    path("signup/profile.php", signup_steps.SignupProfileApi.as_view(), name="api-signup-profile"),
    path("signup/photo.php", signup_steps.SignupPhotoApi.as_view(), name="api-signup-photo"),
]
