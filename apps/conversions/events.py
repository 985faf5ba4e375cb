"""The events of the apps below, as conversions: each adds to the day's rollup and
records the member's network's postback, in the transaction of the event."""

from __future__ import annotations

import logging

from django.forms.models import model_to_dict

from apps.conversions.models import Event
from apps.conversions.postbacks import postback_record
from apps.conversions.rollups import rollup_add

logger = logging.getLogger(__name__)


def _tracking_of(user_id: int) -> dict:
    from apps.accounts.models import SignupTracking

    tracking = SignupTracking.objects.filter(user_id=user_id).first()
    return model_to_dict(tracking) if tracking is not None else {}


def _site():
    from apps.tenants.current import current_site

    return current_site()


def on_signup(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    if not created or raw:
        return
    site = _site()
    tracking = model_to_dict(instance)
    rollup_add(site_id=site.pk, tracking=tracking, signups=1)
    postback_record(
        site=site, tracking=tracking, member_id=instance.user_id, event=Event.SIGNUP, key=f"signup:{instance.user_id}"
    )


def on_confirmed(user) -> None:
    """A member confirmed the e-mail address and became active (accounts' hook); the
    partner hears of it once per member (the postback's key)."""
    site = _site()
    tracking = _tracking_of(user.pk)
    rollup_add(site_id=site.pk, tracking=tracking, confirmations=1)
    postback_record(
        site=site, tracking=tracking, member_id=user.pk, event=Event.EMAIL_CONFIRMED, key=f"confirmed:{user.pk}"
    )


def on_payment(sender, payment, user, paid: bool, refunded: int, charged_back: int, **kwargs) -> None:
    from apps.payments.models import Payment, PaymentStatus

    if payment.user_id is None:
        return
    site = _site()
    tracking = _tracking_of(payment.user_id)
    common = {"site": site, "tracking": tracking, "member_id": payment.user_id, "currency": payment.currency}
    if paid:
        earlier = (
            Payment.objects.filter(user_id=payment.user_id, status=PaymentStatus.PAID)
            .exclude(pk=payment.pk)
            .filter(paid_at__lte=payment.paid_at)
            .exists()
        )
        event = Event.PURCHASE if earlier else Event.FIRST_PURCHASE
        counter = "purchases" if earlier else "first_purchases"
        rollup_add(
            site_id=site.pk, tracking=tracking, currency=payment.currency, revenue=payment.amount, **{counter: 1}
        )
        postback_record(**common, event=event, key=f"purchase:{payment.pk}", amount=payment.amount)
    if refunded:
        rollup_add(site_id=site.pk, tracking=tracking, currency=payment.currency, refunds=1, refunded=refunded)
        postback_record(
            **common, event=Event.REFUND, key=f"refund:{payment.pk}:{payment.amount_refunded}", amount=refunded
        )
    if charged_back:
        rollup_add(
            site_id=site.pk, tracking=tracking, currency=payment.currency, chargebacks=1, charged_back=charged_back
        )
        postback_record(
            **common,
            event=Event.CHARGEBACK,
            key=f"chargeback:{payment.pk}:{payment.amount_charged_back}",
            amount=charged_back,
        )


def on_visit(sender, request, data: dict, **kwargs) -> None:
    site = getattr(request, "site", None)
    if site is None or site.schema_name == "public":
        return
    rollup_add(site_id=site.pk, tracking=data, visits=1)
