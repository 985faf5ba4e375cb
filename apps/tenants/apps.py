from django.apps import AppConfig


class TenantsConfig(AppConfig):
    name = "apps.tenants"
    label = "tenants"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from apps.tenants.middleware import site_cache_clear
        from apps.tenants.models import Company, Domain, MinimumMessageCost, Site

        def clear(**_kwargs) -> None:
            site_cache_clear()

        for model in (Company, Site, Domain, MinimumMessageCost):
            post_save.connect(clear, sender=model, weak=False, dispatch_uid=f"site-cache-{model.__name__}-save")
            post_delete.connect(clear, sender=model, weak=False, dispatch_uid=f"site-cache-{model.__name__}-delete")
