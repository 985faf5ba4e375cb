from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ConversionsConfig(AppConfig):
    name = "apps.conversions"
    label = "conversions"
    verbose_name = _("Traffic and revenue")

    def ready(self) -> None:
        # The events come from the apps below, which know nothing of this one: a signup's
        # tracking row (post_save), a confirmation (accounts' hook), a payment's change
        # and a visit with tracking (their signals), and a visit whose tracking redirect
        # the page cache answered (its hook: counted in Redis, folded by visits_fold).
        # tasks: postback_send, queued by name.
        from django.db.models.signals import post_save

        from apps.accounts.models import SignupTracking
        from apps.accounts.services.signup import member_confirmed_register
        from apps.accounts.signals import tracking_arrived
        from apps.common import page_cache
        from apps.conversions import events, tasks, visits  # noqa: F401
        from apps.payments.signals import payment_changed

        post_save.connect(events.on_signup, sender=SignupTracking, dispatch_uid="conversions-signup")
        member_confirmed_register(events.on_confirmed)
        payment_changed.connect(events.on_payment, dispatch_uid="conversions-payment")
        tracking_arrived.connect(events.on_visit, dispatch_uid="conversions-visit")
        page_cache.arrival_seen(visits.on_cached_arrival)
