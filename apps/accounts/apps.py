from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"
    # In the operators' admin (public schema) its users are the staff; a site's members
    # are found in the member directory.
    verbose_name = _("Staff")

    def ready(self) -> None:
        # staff registers the roles' system check; tasks, mail_send, which the outbox
        # queues by name (apps.notifications.outbox).
        from django.contrib.auth.signals import user_logged_in

        from apps.accounts import staff, tasks  # noqa: F401
        from apps.accounts.signals import language_at_login
        from apps.accounts.staff import roles_on_post_migrate
        from apps.accounts.tracking import (
            COOKIE,
            PASSING_PARAMS,
            arrival_redirect,
            is_arrival,
            lander_visit_keep,
            page_variant,
        )
        from apps.accounts.user_relations import user_relations_per_schema
        from apps.common import page_cache, realtime

        # The staff roles (groups) after every migration of the public schema.
        post_migrate.connect(roles_on_post_migrate, sender=self, dispatch_uid="staff-roles")
        # A member's own language at login (apps.accounts.signals).
        user_logged_in.connect(language_at_login, dispatch_uid="member-language-at-login")
        # Deleting a user touches only its own schema's tables.
        user_relations_per_schema()
        # Visitors' pages from the cache depend on the tracking cookie and the cookie
        # choice, and a lander's page sets the tracking cookie again for each visitor.
        page_cache.variant_part(page_variant)
        page_cache.visit_cookie(COOKIE, lander_visit_keep)
        # A paid arrival's redirect comes from the cache too, with the visitor's own
        # tracking cookie, and the page it leads to is the plain visit's.
        page_cache.arrival(is_arrival, arrival_redirect)
        page_cache.passing_params(PASSING_PARAMS)
        # The top-bar counts that members' open pages get (apps.common.realtime).
        realtime.badges_counter(member_badges)


def member_badges(user_id: int) -> dict | None:
    """The member's top-bar counts (selectors.member_totals), None for a member gone."""
    from apps.accounts.models import User
    from apps.accounts.selectors import member_totals

    member = User.objects.filter(pk=user_id).first()
    return None if member is None else member_totals(member)
