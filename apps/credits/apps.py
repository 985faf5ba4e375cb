from django.apps import AppConfig


class CreditsConfig(AppConfig):
    name = "apps.credits"
    label = "credits"
