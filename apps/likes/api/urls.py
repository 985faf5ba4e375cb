from django.urls import path

from apps.likes.api import views as likes_api
from apps.likes.api.swipe import SwipeApi

urlpatterns = [
    path("likes.php", likes_api.LikesApi.as_view(), name="api-likes"),
    path("auto-like.php", likes_api.AutoLikeApi.as_view(), name="api-auto-like"),
    path("swipe.php", SwipeApi.as_view(), name="api-swipe"),
]
