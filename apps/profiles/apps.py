from django.apps import AppConfig


class ProfilesConfig(AppConfig):
    name = "apps.profiles"
    label = "profiles"

    def ready(self) -> None:
        import logging

        from apps.profiles.geocoding import RedactGeocodeQuery

        logging.getLogger("uvicorn.access").addFilter(RedactGeocodeQuery())

        # The beat's selfie purge (CELERY_BEAT_SCHEDULE) runs by its name.
        # Up to accounts: verification selfies join the erasure's registry (accounts knows no selfie).
        from apps.accounts.services.deletion import member_file_eraser_register
        from apps.profiles import tasks  # noqa: F401
        from apps.profiles.services.verification import member_selfies_erase

        member_file_eraser_register(member_selfies_erase)
