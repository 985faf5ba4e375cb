"""The member's payments in "Download my data" (apps.accounts.services.export)."""

from django.utils import timezone

from apps.payments.models import Payment


def _time(value) -> str | None:
    return timezone.localtime(value).isoformat() if value else None


def payments_section(user) -> tuple[str, list]:
    """Every payment of the member with its refunds, oldest first. Amounts in minor units."""
    payments = Payment.objects.filter(user_id=user.pk).prefetch_related("refunds").order_by("created", "pk")
    return "purchases", [
        {
            "public_id": payment.public_id,
            "created": _time(payment.created),
            "paid_at": _time(payment.paid_at),
            "credits": payment.credits,
            "amount": payment.amount,
            "list_amount": payment.list_amount,
            "currency": payment.currency,
            "discount_code": payment.discount_code or None,
            "method": payment.method,
            "status": payment.status,
            "amount_refunded": payment.amount_refunded,
            "amount_charged_back": payment.amount_charged_back,
            "refunds": [
                {
                    "created": _time(refund.created),
                    "credits": refund.credits,
                    "amount": refund.amount,
                    "status": refund.status,
                }
                for refund in sorted(payment.refunds.all(), key=lambda refund: (refund.created, refund.pk))
            ],
        }
        for payment in payments
    ]
