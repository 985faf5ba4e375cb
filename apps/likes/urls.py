from django.urls import path

from apps.likes import views as likes_views
from apps.likes import views_swipe

urlpatterns = [
    path("likes", likes_views.likes_overview, name="likes"),
    path("likes/<str:type>", likes_views.likes_type, name="likes-type"),
    path("members/<int:id>/like", likes_views.like_view, name="members-id-like"),
    path("members/<int:id>/unlike", likes_views.unlike_view, name="members-id-unlike"),
    path("swipe-game", views_swipe.swipe_game_page, name="swipe-game"),
    path("landers/tinderswipe", views_swipe.tinderswipe_lander, name="landers-tinderswipe"),
]
