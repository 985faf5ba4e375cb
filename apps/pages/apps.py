from django.apps import AppConfig


class PagesConfig(AppConfig):
    name = "apps.pages"
    label = "pages"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from apps.common import page_cache
        from apps.landers.models import LanderVideo, SitePage
        from apps.profiles.models import Photo, Profile
        from apps.tenants.models import Company, Domain, Site

        # The visitors' landing pages stored by apps.common.page_cache are dropped when
        # what they show changes (a site's own fields are part of their key anyway).
        def site_saved(instance, **_kwargs) -> None:
            page_cache.site_pages_forget_on_commit([instance.schema_name])

        def site_part_saved(instance, **_kwargs) -> None:
            site = getattr(instance, "tenant" if isinstance(instance, Domain) else "site", None)
            if site is not None:
                page_cache.site_pages_forget_on_commit([site.schema_name])

        def company_saved(instance, **_kwargs) -> None:
            page_cache.site_pages_forget_on_commit(list(instance.sites.values_list("schema_name", flat=True)))

        def member_content_saved(**_kwargs) -> None:
            page_cache.current_site_pages_forget()

        receivers = [
            (site_saved, (Site,)),
            (site_part_saved, (Domain, LanderVideo, SitePage)),
            (company_saved, (Company,)),
        ]
        for receiver, models in receivers:
            for model in models:
                uid = f"page-cache-{model.__name__}"
                post_save.connect(receiver, sender=model, weak=False, dispatch_uid=f"{uid}-save")
                post_delete.connect(receiver, sender=model, weak=False, dispatch_uid=f"{uid}-delete")
        # A photo approved, rejected or removed; a profile deleted (a profile hidden leaves
        # within the landers' list time, LIST_CACHE_SECONDS, plus PAGE_SECONDS).
        post_save.connect(member_content_saved, sender=Photo, weak=False, dispatch_uid="page-cache-Photo-save")
        post_delete.connect(member_content_saved, sender=Photo, weak=False, dispatch_uid="page-cache-Photo-delete")
        post_delete.connect(member_content_saved, sender=Profile, weak=False, dispatch_uid="page-cache-Profile-delete")
