from django.apps import AppConfig


class TenantsConfig(AppConfig):
    name = "apps.tenants"
    label = "tenants"

    def ready(self) -> None:
        from django.db import transaction
        from django.db.models.signals import post_delete, post_save

        from apps.common.sites import site_lookup_register
        from apps.tenants.current import current_site
        from apps.tenants.middleware import site_cache_clear, site_cached, site_for_host, sites_changed
        from apps.tenants.models import Company, Domain, MinimumMessageCost, Site

        # common's request cycle (the page cache, the real-time transport) reaches the
        # site lookup through apps.common.sites: common stands below this app.
        site_lookup_register(current_site=current_site, site_cached=site_cached, site_for_host=site_for_host)

        def clear(**_kwargs) -> None:
            # This process at once; every process (this one again, in case a request read
            # the old rows meanwhile) once the change is committed.
            site_cache_clear()
            transaction.on_commit(sites_changed)

        for model in (Company, Site, Domain, MinimumMessageCost):
            post_save.connect(clear, sender=model, weak=False, dispatch_uid=f"site-cache-{model.__name__}-save")
            post_delete.connect(clear, sender=model, weak=False, dispatch_uid=f"site-cache-{model.__name__}-delete")
