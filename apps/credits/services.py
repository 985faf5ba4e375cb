"""Changing a member's credits. Every change writes one ledger entry and moves the cached
balance (`User.credits`) in the same transaction; the balance can never go below zero
(the check constraint `user_credits_not_negative` backs the code).

- credits_spend: a message, photo or gift. One conditional UPDATE takes the credits only
  if enough are there, so parallel spends cannot overdraw: the row lock it takes makes
  the others wait and re-check. Call it inside the transaction that stores what was
  bought, so both happen or neither does.
- credits_grant: a purchase or the signup bonus, once per idempotency key.
- credits_take_back: a refund or chargeback, once per key; what the balance cannot
  cover becomes a debt that freezes spending (spec: "a balance that a chargeback would
  make negative freezes spending instead").
- credits_adjust: support adds or takes credits, with a note.
"""

from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.common.exceptions import ApplicationError
from apps.common.prepared import server_cursor
from apps.credits.models import GRANT_KINDS, SPENDING_KINDS, TAKE_BACK_KINDS, CreditEntry, EntryKind
from apps.credits.selectors import ledger_balance

User = get_user_model()

# The note of the entry that pays off a chargeback debt out of an adjustment.
DEBT_PAID_NOTE = "Pays off credits owed after a reversed payment"


def not_enough_credits_error() -> ApplicationError:
    return ApplicationError("not_enough_credits", _("You do not have enough credits"), status_code=402)


def credits_frozen_error() -> ApplicationError:
    return ApplicationError(
        "credits_frozen",
        _("Your credits are on hold after a reversed payment. Please contact customer service."),
        status_code=402,
    )


def _entry(*, user_id: int, kind: str, credits: int, balance_after: int, **fields) -> CreditEntry:
    return CreditEntry.objects.create(
        user_id=user_id, kind=kind, credits=credits, balance_after=balance_after, **fields
    )


_SPEND = f"""
WITH spent AS (
    UPDATE {User._meta.db_table} SET credits = credits - %s
    WHERE id = %s AND credits >= %s AND NOT credits_frozen
    RETURNING credits
)
INSERT INTO {CreditEntry._meta.db_table}
    (user_id, kind, credits, balance_after, owed, key, payment_id, reference, note, staff_name, created)
SELECT %s, %s, %s, spent.credits, 0, NULL, NULL, %s, '', '', %s FROM spent
RETURNING id, balance_after
"""  # noqa: S608 (table names from the models, values as parameters)


def credits_spend(*, user, credits: int, kind: str, reference: str = "") -> CreditEntry:
    """Take `credits` (> 0) for a message, photo or gift. Raises "not_enough_credits"
    (402, "You do not have enough credits") or "credits_frozen"; then nothing changed.

    One statement takes the credits and writes the entry (a data-modifying WITH): it is
    atomic by itself, so it needs no savepoint of its own, and the message request saves
    the round trips (it ran four statements: a savepoint, the UPDATE, the entry's INSERT
    and the release)."""
    if kind not in SPENDING_KINDS:
        raise ValueError(f"not a spending kind: {kind}")
    if credits <= 0:
        raise ValueError("credits to spend must be positive")
    created = timezone.now()
    with server_cursor() as cursor:  # prepared on the connection: one per message sent
        cursor.execute(_SPEND, [credits, user.pk, credits, user.pk, kind, -credits, reference, created])
        row = cursor.fetchone()
    if row is None:
        frozen = User.objects.filter(pk=user.pk, credits_frozen=True).exists()
        raise credits_frozen_error() if frozen else not_enough_credits_error()
    entry_id, balance = row
    user.credits = balance
    entry = CreditEntry(
        pk=entry_id,
        user_id=user.pk,
        kind=kind,
        credits=-credits,
        balance_after=balance,
        reference=reference,
        created=created,
    )
    entry._state.adding, entry._state.db = False, connection.alias  # a stored row, as from a query
    return entry


def credits_grant(*, user, credits: int, kind: str, key: str, payment=None, note: str = "") -> CreditEntry | None:
    """Add `credits` (> 0) for a purchase or the signup bonus. Happens once per `key`:
    a repeated call returns None and changes nothing."""
    if kind not in GRANT_KINDS:
        raise ValueError(f"not a granting kind: {kind}")
    if credits <= 0:
        raise ValueError("credits to grant must be positive")
    try:
        with transaction.atomic():
            # The key's row first: a second caller with the same key waits here for the
            # first one's commit and then fails on the unique key, before any balance moves.
            entry = _entry(
                user_id=user.pk, kind=kind, credits=credits, balance_after=0, key=key, payment=payment, note=note
            )
            balance = User.objects.filter(pk=user.pk).update(
                credits=F("credits") + credits
            ) and User.objects.values_list("credits", flat=True).get(pk=user.pk)
            entry.balance_after = balance
            entry.save(update_fields=["balance_after"])
    except IntegrityError:
        if CreditEntry.objects.filter(key=key).exists():
            return None
        raise
    user.credits = balance
    return entry


def credits_take_back(*, user, credits: int, kind: str, key: str, payment=None, note: str = "") -> CreditEntry | None:
    """Take back `credits` (> 0) for a refund or chargeback, once per `key`. Takes what the
    balance holds; a shortfall is recorded as `credits_owed` and freezes spending. Returns
    the entry (None when the key was used before)."""
    if kind not in TAKE_BACK_KINDS:
        raise ValueError(f"not a take-back kind: {kind}")
    if credits <= 0:
        raise ValueError("credits to take back must be positive")
    with transaction.atomic():
        if CreditEntry.objects.filter(key=key).exists():
            return None
        locked = User.objects.select_for_update().only("credits", "credits_owed", "credits_frozen").get(pk=user.pk)
        if CreditEntry.objects.filter(key=key).exists():  # a parallel caller finished first
            return None
        taken = min(credits, locked.credits)
        owed = credits - taken
        locked.credits -= taken
        fields = ["credits"]
        if owed:
            locked.credits_owed += owed
            locked.credits_frozen = True
            fields += ["credits_owed", "credits_frozen"]
        locked.save(update_fields=fields)
        # Taking nothing (an empty balance) still writes the entry: it records the debt
        # and uses the key.
        entry = _entry(
            user_id=user.pk,
            kind=kind,
            credits=-taken,
            balance_after=locked.credits,
            key=key,
            payment=payment,
            note=note,
            owed=owed,
        )
    user.credits = locked.credits
    user.credits_owed = locked.credits_owed
    user.credits_frozen = locked.credits_frozen
    return entry


def credits_adjust(*, user, credits: int, staff_name: str, note: str) -> CreditEntry:
    """Support adds (credits > 0) or takes (credits < 0) credits, with a note. Taking more
    than the balance is refused. Adding first pays off a debt left by chargebacks (a second
    adjustment entry takes what pays it); when the debt is paid, spending is allowed again.
    Returns the entry with the credits as given."""
    if not credits:
        raise ValueError("an adjustment changes the balance")
    if not note.strip():
        raise ApplicationError("note_required", _("Say why the credits change."))
    with transaction.atomic():
        locked = User.objects.select_for_update().only("credits", "credits_owed", "credits_frozen").get(pk=user.pk)
        if locked.credits + credits < 0:
            raise not_enough_credits_error()
        locked.credits += credits
        fields = ["credits"]
        entry = _entry(
            user_id=user.pk,
            kind=EntryKind.ADJUSTMENT,
            credits=credits,
            balance_after=locked.credits,
            note=note.strip(),
            staff_name=staff_name,
        )
        paid = min(credits, locked.credits_owed) if credits > 0 else 0
        if paid:
            locked.credits -= paid
            locked.credits_owed -= paid
            locked.credits_frozen = locked.credits_owed > 0
            fields += ["credits_owed", "credits_frozen"]
            _entry(
                user_id=user.pk,
                kind=EntryKind.ADJUSTMENT,
                credits=-paid,
                balance_after=locked.credits,
                note=DEBT_PAID_NOTE,
                staff_name=staff_name,
            )
        locked.save(update_fields=fields)
    user.credits = locked.credits
    user.credits_owed = locked.credits_owed
    user.credits_frozen = locked.credits_frozen
    return entry


def credits_unfreeze(*, user, staff_name: str, note: str) -> None:
    """Support clears a chargeback debt (settled outside the site) and allows spending."""
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(credits_frozen=False, credits_owed=0)
    user.credits_frozen = False
    user.credits_owed = 0


# --- Checks ------------------------------------------------------------------------


def credits_rebuild(*, user) -> tuple[int, int]:
    """Set the cached balance to the ledger's sum. Returns (cached before, ledger)."""
    with transaction.atomic():
        locked = User.objects.select_for_update().only("credits").get(pk=user.pk)
        before = locked.credits
        total = ledger_balance(user)
        if total != before:
            User.objects.filter(pk=user.pk).update(credits=total)
    return before, total
