"""Reads about a member's credits. The ledger is the truth and `User.credits` its cached
sum (apps.credits.services keeps both in step), read here by the support pages, the
rebuild of the cached balance and the tests."""

from django.db.models import Sum

from apps.credits.models import CreditEntry


def ledger_balance(user) -> int:
    """The sum of the member's ledger entries: what `User.credits` must equal. One query."""
    return CreditEntry.objects.filter(user_id=user.pk).aggregate(total=Sum("credits"))["total"] or 0
