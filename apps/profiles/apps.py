from django.apps import AppConfig


class ProfilesConfig(AppConfig):
    name = "apps.profiles"
    label = "profiles"

    def ready(self) -> None:
        import logging

        from apps.profiles.geocoding import RedactGeocodeQuery

        logging.getLogger("uvicorn.access").addFilter(RedactGeocodeQuery())
