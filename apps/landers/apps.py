from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LandersConfig(AppConfig):
    """The landers (spec §2 landers-*, members-id-landing*), the site pages of the
    {token} route and the landers' video. Models in the public schema (a shared app)."""

    name = "apps.landers"
    label = "landers"
    verbose_name = _("Landers and site pages")

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from apps.landers.selectors import lander_lists_forget_on_commit
        from apps.profiles.models import Photo, Profile

        # The site's card lists leave the landers at once when a photo is approved,
        # rejected or removed or a profile deleted (its pages go too: apps.pages.apps).
        def member_content_saved(**_kwargs) -> None:
            lander_lists_forget_on_commit()

        post_save.connect(member_content_saved, sender=Photo, weak=False, dispatch_uid="lander-lists-Photo-save")
        post_delete.connect(member_content_saved, sender=Photo, weak=False, dispatch_uid="lander-lists-Photo-delete")
        post_delete.connect(
            member_content_saved, sender=Profile, weak=False, dispatch_uid="lander-lists-Profile-delete"
        )
