from django.apps import AppConfig


class LikesConfig(AppConfig):
    name = "apps.likes"
    label = "likes"
