from django.apps import AppConfig


class SupportConfig(AppConfig):
    name = "apps.support"
    label = "support"

    def ready(self) -> None:
        from apps.support.admin_audit import audit_every_model_admin

        audit_every_model_admin()
