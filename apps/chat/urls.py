"""The chat pages (spec §2). Included by config/urls.py."""

from django.urls import path, re_path

from apps.chat import views

urlpatterns = [
    path("chats", views.chats_page, name="chats"),
    path("chats/<int:id>", views.chat_page, name="chats-id"),
    path("members/<int:id>/chat", views.member_chat, name="members-id-chat"),
    # Chat photos, to the conversation's two members only (apps.chat.views.media_chat_photo).
    re_path(r"^media/(?P<path>[a-z_][a-z0-9_]*/chat/.+)$", views.media_chat_photo, name="media-chat-photo"),
    # Gift pictures (uploaded in the operators' admin), on the host of the gift's site only.
    re_path(r"^media/(?P<path>public/gifts/[^/]+)$", views.media_gift_image, name="media-gift-image"),
]
