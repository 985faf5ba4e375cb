"""The member's ledger in "Download my data" (apps.accounts.services.export)."""

from django.utils import timezone

from apps.credits.models import CreditEntry


def credits_section(user) -> tuple[str, list]:
    """Every ledger entry of the member, oldest first. Support's names stay out."""
    entries = CreditEntry.objects.filter(user_id=user.pk).select_related("payment").order_by("created", "pk")
    return "credits", [
        {
            "created": timezone.localtime(entry.created).isoformat(),
            "kind": entry.kind,
            "credits": entry.credits,
            "balance_after": entry.balance_after,
            "owed": entry.owed,
            "payment": entry.payment.public_id if entry.payment else None,
            "reference": entry.reference,
            "note": entry.note,
        }
        for entry in entries
    ]
