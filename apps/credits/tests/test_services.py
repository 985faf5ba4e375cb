"""The credits ledger (issue 6 item 1): spending, granting once per key, taking back for
refunds and chargebacks (a shortfall freezes spending), support adjustments, unfreezing,
the ledger's sum and the rebuild; the database refuses a negative balance and entries
whose sign does not match their kind."""

import pytest
from django.db import IntegrityError, connection, transaction

from apps.accounts.models import User
from apps.common.exceptions import ApplicationError
from apps.credits.models import CreditEntry, EntryKind
from apps.credits.selectors import ledger_balance
from apps.credits.services import (
    DEBT_PAID_NOTE,
    credits_adjust,
    credits_grant,
    credits_rebuild,
    credits_spend,
    credits_take_back,
    credits_unfreeze,
)
from apps.payments.models import Payment

pytestmark = pytest.mark.django_db

NOT_ENOUGH = "You do not have enough credits"
FROZEN = "Your credits are on hold after a reversed payment. Please contact customer service."


@pytest.fixture
def anna(in_site) -> User:
    return User.objects.create_user("Anna", "anna@example.com", "a-Long-passphrase-42")


def stored(user: User) -> User:
    return User.objects.get(pk=user.pk)


def with_credits(user: User, credits: int) -> User:
    credits_grant(user=user, credits=credits, kind=EntryKind.PURCHASE, key=f"setup:{user.pk}:{credits}")
    return user


def frozen_with_debt(user: User, *, balance: int, owed: int) -> User:
    """`balance` credits, then a chargeback `owed` credits larger than the balance."""
    if balance:
        with_credits(user, balance)
    credits_take_back(user=user, credits=balance + owed, kind=EntryKind.CHARGEBACK, key=f"cb:{user.pk}")
    return user


def payment_for(user: User, credits: int = 20) -> Payment:
    return Payment.objects.create(
        user=user,
        package_id=1,
        credits=credits,
        currency="EUR",
        list_amount=1495,
        amount=1495,
        method="ideal",
        gateway="sandbox",
        status="paid",
    )


def assert_consistent(user: User) -> None:
    row = stored(user)
    assert row.credits == ledger_balance(user) >= 0
    last = CreditEntry.objects.filter(user=user).first()
    assert last is None or last.balance_after == row.credits


# --- credits_spend -------------------------------------------------------------------


class TestSpend:
    def test_takes_the_credits_and_writes_a_negative_entry(self, anna):
        with_credits(anna, 10)
        entry = credits_spend(user=anna, credits=3, kind=EntryKind.MESSAGE, reference="message:7")
        assert (entry.kind, entry.credits, entry.balance_after, entry.reference) == ("message", -3, 7, "message:7")
        assert entry.key is None
        assert anna.credits == stored(anna).credits == 7
        assert_consistent(anna)

    @pytest.mark.parametrize("kind", [EntryKind.MESSAGE, EntryKind.PHOTO, EntryKind.GIFT])
    def test_every_spending_kind(self, anna, kind):
        with_credits(anna, 5)
        assert credits_spend(user=anna, credits=5, kind=kind).kind == kind
        assert stored(anna).credits == 0

    def test_the_whole_balance_may_be_spent(self, anna):
        with_credits(anna, 4)
        credits_spend(user=anna, credits=4, kind=EntryKind.GIFT)
        assert stored(anna).credits == 0
        assert_consistent(anna)

    def test_not_enough_credits_changes_nothing(self, anna):
        with_credits(anna, 2)
        with pytest.raises(ApplicationError) as error:
            credits_spend(user=anna, credits=3, kind=EntryKind.MESSAGE)
        assert (error.value.code, error.value.status_code, error.value.message) == (
            "not_enough_credits",
            402,
            NOT_ENOUGH,
        )
        assert stored(anna).credits == 2
        assert CreditEntry.objects.filter(user=anna, kind=EntryKind.MESSAGE).count() == 0

    def test_a_member_without_credits_cannot_spend(self, anna):
        with pytest.raises(ApplicationError) as error:
            credits_spend(user=anna, credits=1, kind=EntryKind.PHOTO)
        assert error.value.code == "not_enough_credits"
        assert not CreditEntry.objects.filter(user=anna).exists()

    def test_frozen_spending_is_refused_even_with_enough_credits(self, anna):
        with_credits(anna, 10)
        User.objects.filter(pk=anna.pk).update(credits_frozen=True)
        with pytest.raises(ApplicationError) as error:
            credits_spend(user=anna, credits=1, kind=EntryKind.MESSAGE)
        assert (error.value.code, error.value.status_code, error.value.message) == ("credits_frozen", 402, FROZEN)
        assert stored(anna).credits == 10

    def test_frozen_wins_over_not_enough(self, anna):
        frozen_with_debt(anna, balance=0, owed=3)
        with pytest.raises(ApplicationError) as error:
            credits_spend(user=anna, credits=1, kind=EntryKind.MESSAGE)
        assert error.value.code == "credits_frozen"

    def test_a_stale_user_object_cannot_overdraw(self, anna):
        """The check is in the UPDATE, not on the Python object's `credits`."""
        with_credits(anna, 1)
        stale = stored(anna)
        credits_spend(user=anna, credits=1, kind=EntryKind.MESSAGE)
        assert stale.credits == 1
        with pytest.raises(ApplicationError):
            credits_spend(user=stale, credits=1, kind=EntryKind.MESSAGE)
        assert stored(anna).credits == 0

    def test_spending_rolls_back_with_the_purchase_it_pays_for(self, anna):
        with_credits(anna, 5)
        with pytest.raises(RuntimeError), transaction.atomic():
            credits_spend(user=anna, credits=2, kind=EntryKind.MESSAGE)
            raise RuntimeError("storing the message failed")
        assert stored(anna).credits == 5
        assert_consistent(anna)

    @pytest.mark.parametrize("kind", [EntryKind.PURCHASE, EntryKind.REFUND, EntryKind.ADJUSTMENT, "nonsense"])
    def test_only_spending_kinds(self, anna, kind):
        with_credits(anna, 5)
        with pytest.raises(ValueError, match="not a spending kind"):
            credits_spend(user=anna, credits=1, kind=kind)

    @pytest.mark.parametrize("credits", [0, -1])
    def test_only_positive_amounts(self, anna, credits):
        with_credits(anna, 5)
        with pytest.raises(ValueError, match="positive"):
            credits_spend(user=anna, credits=credits, kind=EntryKind.MESSAGE)
        assert stored(anna).credits == 5


# --- credits_grant -------------------------------------------------------------------


class TestGrant:
    def test_adds_the_credits_with_key_payment_and_note(self, anna):
        payment = payment_for(anna)
        entry = credits_grant(
            user=anna, credits=20, kind=EntryKind.PURCHASE, key=f"purchase:{payment.pk}", payment=payment, note="20"
        )
        assert (entry.kind, entry.credits, entry.balance_after) == ("purchase", 20, 20)
        assert (entry.key, entry.payment_id, entry.note) == (f"purchase:{payment.pk}", payment.pk, "20")
        assert anna.credits == stored(anna).credits == 20
        assert_consistent(anna)

    def test_balance_after_counts_what_was_there(self, anna):
        with_credits(anna, 7)
        entry = credits_grant(user=anna, credits=10, kind=EntryKind.SIGNUP_BONUS, key=f"signup_bonus:{anna.pk}")
        assert entry.balance_after == 17 == stored(anna).credits

    def test_the_same_key_grants_once(self, anna):
        assert credits_grant(user=anna, credits=10, kind=EntryKind.SIGNUP_BONUS, key="signup_bonus:x") is not None
        assert credits_grant(user=anna, credits=10, kind=EntryKind.SIGNUP_BONUS, key="signup_bonus:x") is None
        assert credits_grant(user=anna, credits=99, kind=EntryKind.PURCHASE, key="signup_bonus:x") is None
        assert stored(anna).credits == 10
        assert CreditEntry.objects.filter(user=anna).count() == 1

    def test_a_repeated_key_leaves_the_callers_transaction_usable(self, anna):
        credits_grant(user=anna, credits=10, kind=EntryKind.PURCHASE, key="purchase:1")
        with transaction.atomic():
            assert credits_grant(user=anna, credits=10, kind=EntryKind.PURCHASE, key="purchase:1") is None
            credits_grant(user=anna, credits=5, kind=EntryKind.PURCHASE, key="purchase:2")
        assert stored(anna).credits == 15
        assert_consistent(anna)

    @pytest.mark.parametrize("kind", [EntryKind.MESSAGE, EntryKind.REFUND, EntryKind.CHARGEBACK, EntryKind.ADJUSTMENT])
    def test_only_granting_kinds(self, anna, kind):
        with pytest.raises(ValueError, match="not a granting kind"):
            credits_grant(user=anna, credits=1, kind=kind, key="k")

    @pytest.mark.parametrize("credits", [0, -5])
    def test_only_positive_amounts(self, anna, credits):
        with pytest.raises(ValueError, match="positive"):
            credits_grant(user=anna, credits=credits, kind=EntryKind.PURCHASE, key="k")
        assert not CreditEntry.objects.filter(key="k").exists()


# --- credits_take_back ---------------------------------------------------------------


class TestTakeBack:
    def test_a_refund_within_the_balance(self, anna):
        payment = payment_for(anna)
        with_credits(anna, 20)
        entry = credits_take_back(
            user=anna, credits=15, kind=EntryKind.REFUND, key="refund:1", payment=payment, note="unused"
        )
        assert (entry.kind, entry.credits, entry.owed, entry.balance_after) == ("refund", -15, 0, 5)
        assert (entry.payment_id, entry.note, entry.key) == (payment.pk, "unused", "refund:1")
        row = stored(anna)
        assert (row.credits, row.credits_owed, row.credits_frozen) == (5, 0, False)
        assert (anna.credits, anna.credits_owed, anna.credits_frozen) == (5, 0, False)
        assert_consistent(anna)

    def test_a_chargeback_larger_than_the_balance_freezes_spending(self, anna):
        with_credits(anna, 8)
        entry = credits_take_back(user=anna, credits=20, kind=EntryKind.CHARGEBACK, key="chargeback:1")
        assert (entry.credits, entry.owed, entry.balance_after) == (-8, 12, 0)
        row = stored(anna)
        assert (row.credits, row.credits_owed, row.credits_frozen) == (0, 12, True)
        assert (anna.credits, anna.credits_owed, anna.credits_frozen) == (0, 12, True)
        assert_consistent(anna)

    def test_an_empty_balance_records_the_whole_debt(self, anna):
        entry = credits_take_back(user=anna, credits=5, kind=EntryKind.CHARGEBACK, key="chargeback:1")
        assert (entry.credits, entry.owed, entry.balance_after) == (0, 5, 0)
        assert stored(anna).credits_frozen is True

    def test_debts_add_up(self, anna):
        credits_take_back(user=anna, credits=5, kind=EntryKind.CHARGEBACK, key="chargeback:1")
        credits_take_back(user=anna, credits=3, kind=EntryKind.REFUND, key="refund:1")
        assert stored(anna).credits_owed == 8

    def test_the_same_key_takes_back_once(self, anna):
        with_credits(anna, 20)
        assert credits_take_back(user=anna, credits=5, kind=EntryKind.REFUND, key="refund:1") is not None
        assert credits_take_back(user=anna, credits=5, kind=EntryKind.REFUND, key="refund:1") is None
        assert credits_take_back(user=anna, credits=50, kind=EntryKind.CHARGEBACK, key="refund:1") is None
        row = stored(anna)
        assert (row.credits, row.credits_owed, row.credits_frozen) == (15, 0, False)

    def test_a_key_used_by_a_grant_is_not_taken_back(self, anna):
        credits_grant(user=anna, credits=5, kind=EntryKind.PURCHASE, key="shared")
        assert credits_take_back(user=anna, credits=5, kind=EntryKind.REFUND, key="shared") is None
        assert stored(anna).credits == 5

    @pytest.mark.parametrize("kind", [EntryKind.MESSAGE, EntryKind.PURCHASE, EntryKind.ADJUSTMENT])
    def test_only_take_back_kinds(self, anna, kind):
        with pytest.raises(ValueError, match="not a take-back kind"):
            credits_take_back(user=anna, credits=1, kind=kind, key="k")

    @pytest.mark.parametrize("credits", [0, -1])
    def test_only_positive_amounts(self, anna, credits):
        with pytest.raises(ValueError, match="positive"):
            credits_take_back(user=anna, credits=credits, kind=EntryKind.REFUND, key="k")
        assert not CreditEntry.objects.filter(key="k").exists()


# --- credits_adjust ------------------------------------------------------------------


class TestAdjust:
    def test_support_adds_credits_with_a_note_and_its_name(self, anna):
        entry = credits_adjust(user=anna, credits=25, staff_name="carla", note="  Goodwill after an outage ")
        assert (entry.kind, entry.credits, entry.balance_after) == ("adjustment", 25, 25)
        assert (entry.note, entry.staff_name, entry.key) == ("Goodwill after an outage", "carla", None)
        assert anna.credits == stored(anna).credits == 25
        assert_consistent(anna)

    def test_support_takes_credits(self, anna):
        with_credits(anna, 10)
        entry = credits_adjust(user=anna, credits=-4, staff_name="carla", note="Double purchase")
        assert (entry.credits, entry.balance_after) == (-4, 6)
        assert stored(anna).credits == 6

    def test_taking_more_than_the_balance_is_refused(self, anna):
        with_credits(anna, 3)
        with pytest.raises(ApplicationError) as error:
            credits_adjust(user=anna, credits=-4, staff_name="carla", note="Too much")
        assert (error.value.code, error.value.message) == ("not_enough_credits", NOT_ENOUGH)
        assert stored(anna).credits == 3
        assert not CreditEntry.objects.filter(user=anna, kind=EntryKind.ADJUSTMENT).exists()

    @pytest.mark.parametrize("note", ["", "   "])
    def test_a_note_is_required(self, anna, note):
        with pytest.raises(ApplicationError) as error:
            credits_adjust(user=anna, credits=5, staff_name="carla", note=note)
        assert (error.value.code, error.value.message) == ("note_required", "Say why the credits change.")
        assert stored(anna).credits == 0

    def test_zero_is_not_an_adjustment(self, anna):
        with pytest.raises(ValueError, match="changes the balance"):
            credits_adjust(user=anna, credits=0, staff_name="carla", note="Nothing")

    def test_adding_pays_off_a_chargeback_debt_first(self, anna):
        frozen_with_debt(anna, balance=2, owed=5)
        entry = credits_adjust(user=anna, credits=3, staff_name="carla", note="Paid by bank transfer")
        assert entry.credits == 3
        row = stored(anna)
        assert (row.credits, row.credits_owed, row.credits_frozen) == (0, 2, True)
        payoff = CreditEntry.objects.filter(user=anna).first()
        assert (payoff.kind, payoff.credits, payoff.note, payoff.staff_name) == (
            "adjustment",
            -3,
            DEBT_PAID_NOTE,
            "carla",
        )
        assert_consistent(anna)

        credits_adjust(user=anna, credits=10, staff_name="carla", note="Rest paid, and a bonus")
        row = stored(anna)
        assert (row.credits, row.credits_owed, row.credits_frozen) == (8, 0, False)
        assert (anna.credits, anna.credits_owed, anna.credits_frozen) == (8, 0, False)
        assert_consistent(anna)
        credits_spend(user=anna, credits=8, kind=EntryKind.MESSAGE)

    def test_taking_credits_leaves_a_debt_alone(self, anna):
        frozen_with_debt(anna, balance=0, owed=5)
        credits_grant(user=anna, credits=3, kind=EntryKind.SIGNUP_BONUS, key="bonus")  # a grant pays no debt
        credits_adjust(user=anna, credits=-1, staff_name="carla", note="Wrong bonus")
        row = stored(anna)
        assert (row.credits, row.credits_owed, row.credits_frozen) == (2, 5, True)
        assert_consistent(anna)


# --- credits_unfreeze ----------------------------------------------------------------


class TestUnfreeze:
    def test_clears_the_debt_and_allows_spending(self, anna):
        frozen_with_debt(anna, balance=0, owed=5)
        credits_grant(user=anna, credits=3, kind=EntryKind.SIGNUP_BONUS, key="bonus")
        credits_unfreeze(user=anna, staff_name="carla", note="Settled by phone")
        row = stored(anna)
        assert (row.credits, row.credits_owed, row.credits_frozen) == (3, 0, False)
        assert (anna.credits_owed, anna.credits_frozen) == (0, False)
        credits_spend(user=anna, credits=3, kind=EntryKind.MESSAGE)
        assert_consistent(anna)

    def test_unfreezing_moves_no_credits(self, anna):
        frozen_with_debt(anna, balance=4, owed=1)
        entries = CreditEntry.objects.filter(user=anna).count()
        credits_unfreeze(user=anna, staff_name="carla", note="Settled")
        assert CreditEntry.objects.filter(user=anna).count() == entries
        assert stored(anna).credits == 0


# --- Ledger sum and rebuild ----------------------------------------------------------


class TestLedger:
    def test_the_sum_of_a_members_entries(self, anna):
        bob = User.objects.create_user("Bob", "bob@example.com", "a-Long-passphrase-42")
        assert ledger_balance(anna) == 0
        with_credits(anna, 10)
        with_credits(bob, 50)
        credits_spend(user=anna, credits=4, kind=EntryKind.MESSAGE)
        credits_take_back(user=anna, credits=10, kind=EntryKind.CHARGEBACK, key="cb")
        assert ledger_balance(anna) == 0 and ledger_balance(bob) == 50
        assert stored(anna).credits_owed == 4

    def test_rebuild_sets_the_cached_balance_to_the_ledger(self, anna):
        with_credits(anna, 10)
        credits_spend(user=anna, credits=3, kind=EntryKind.PHOTO)
        User.objects.filter(pk=anna.pk).update(credits=99)  # a cache gone wrong
        assert credits_rebuild(user=anna) == (99, 7)
        assert stored(anna).credits == 7

    def test_rebuild_of_a_correct_balance_changes_nothing(self, anna):
        with_credits(anna, 10)
        assert credits_rebuild(user=anna) == (10, 10)
        assert stored(anna).credits == 10


# --- Database constraints ------------------------------------------------------------


class TestConstraints:
    def test_a_negative_balance_is_refused_even_without_the_services(self, anna):
        with_credits(anna, 2)
        sql = f"UPDATE {User._meta.db_table} SET credits = credits - 3 WHERE id = %s"
        with (
            pytest.raises(IntegrityError, match="user_credits_not_negative"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql, [anna.pk])
        with pytest.raises(IntegrityError), transaction.atomic():
            User.objects.filter(pk=anna.pk).update(credits=-1)
        assert stored(anna).credits == 2

    @pytest.mark.parametrize(
        ("kind", "credits"),
        [
            ("message", 1),
            ("message", 0),
            ("photo", 2),
            ("gift", 0),
            ("purchase", 0),
            ("purchase", -20),
            ("signup_bonus", -10),
            ("refund", 1),
            ("chargeback", 5),
            ("adjustment", 0),
        ],
    )
    def test_an_entry_whose_sign_does_not_match_its_kind_is_refused(self, anna, kind, credits):
        with pytest.raises(IntegrityError, match="credit_entry_sign_matches_kind"), transaction.atomic():
            CreditEntry.objects.create(user=anna, kind=kind, credits=credits, balance_after=0)

    @pytest.mark.parametrize(
        ("kind", "credits"),
        [
            ("message", -1),
            ("photo", -2),
            ("gift", -10),
            ("purchase", 20),
            ("signup_bonus", 10),
            ("refund", -5),
            ("refund", 0),
            ("chargeback", 0),
            ("adjustment", 3),
            ("adjustment", -3),
        ],
    )
    def test_entries_with_the_right_sign_are_stored(self, anna, kind, credits):
        entry = CreditEntry.objects.create(user=anna, kind=kind, credits=credits, balance_after=0)
        stored = CreditEntry.objects.get(pk=entry.pk)
        assert (stored.user_id, stored.kind, stored.credits) == (anna.pk, kind, credits)

    def test_an_unknown_kind_is_refused(self, anna):
        with pytest.raises(IntegrityError), transaction.atomic():
            CreditEntry.objects.create(user=anna, kind="lottery", credits=5, balance_after=0)

    def test_keys_are_unique(self, anna):
        CreditEntry.objects.create(user=anna, kind="purchase", credits=1, balance_after=1, key="k")
        with pytest.raises(IntegrityError), transaction.atomic():
            CreditEntry.objects.create(user=anna, kind="purchase", credits=1, balance_after=2, key="k")
