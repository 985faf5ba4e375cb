from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "apps.notifications"
    label = "notifications"

    def ready(self) -> None:
        # The outbox below queues these tasks by name only (apps.notifications.outbox):
        # registered in every process, they run eagerly under the test settings and a
        # worker or a web process knows each name it sends.
        from apps.notifications import tasks  # noqa: F401
