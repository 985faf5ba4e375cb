from django.urls import path

from apps.chat.api import views

urlpatterns = [
    path("chats.php", views.ChatsApi.as_view(), name="api-chats"),
    path("chat.php", views.ChatApi.as_view(), name="api-chat"),
    path("chat-read.php", views.ChatReadApi.as_view(), name="api-chat-read"),
    path("message.php", views.MessageApi.as_view(), name="api-message"),
    path("gifts.php", views.GiftsApi.as_view(), name="api-gifts"),
]
