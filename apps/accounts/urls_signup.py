from django.urls import path

from apps.accounts import views_signup
from apps.landers import views as lander_views

urlpatterns = [
    path("signup", views_signup.signup, name="signup"),
    path("complete-signup", views_signup.complete_signup, name="complete-signup"),
    path("signup-matches", views_signup.signup_matches_page, name="signup-matches"),
    path("members/<int:id>/signup", lander_views.member_signup, name="members-id-signup"),
    path("sw.js", views_signup.service_worker, name="service-worker"),
]
