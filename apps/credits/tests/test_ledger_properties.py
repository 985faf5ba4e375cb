"""A hypothesis state machine over the ledger services (issue 6 "Quality"): grants and
spends, refunds and chargebacks taken back once per key, support adjustments, unfreezing
and rebuilding, in any order. A simple model predicts each outcome; after every step

- the cached balance equals the sum of the entries and is never negative,
- the member is frozen exactly while credits are owed (until support unfreezes),
- a spend never succeeds while frozen or short of credits."""

import itertools

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from apps.accounts.models import User
from apps.common.exceptions import ApplicationError
from apps.credits.models import CreditEntry, EntryKind
from apps.credits.selectors import ledger_balance
from apps.credits.services import (
    credits_adjust,
    credits_grant,
    credits_rebuild,
    credits_spend,
    credits_take_back,
    credits_unfreeze,
)

pytestmark = pytest.mark.django_db

_members = itertools.count()

amounts = st.integers(min_value=1, max_value=30)
# A few keys each, so repeated webhooks (the same key again) happen often.
grant_keys = st.sampled_from([f"purchase:{n}" for n in range(4)] + ["signup_bonus"])
take_back_keys = st.sampled_from([f"refund:{n}" for n in range(3)] + [f"chargeback:{n}" for n in range(3)])


class LedgerMachine(RuleBasedStateMachine):
    @initialize()
    def member(self):
        number = next(_members)
        self.user = User.objects.create_user(f"prop{number}", f"prop{number}@example.com", "a-Long-passphrase-42")
        self.balance = 0
        self.owed = 0
        self.frozen = False
        self.used_keys: set[str] = set()

    def key(self, key: str) -> str:
        return f"{self.user.pk}:{key}"

    @rule(credits=amounts, key=grant_keys)
    def grant(self, credits, key):
        kind = EntryKind.SIGNUP_BONUS if key == "signup_bonus" else EntryKind.PURCHASE
        entry = credits_grant(user=self.user, credits=credits, kind=kind, key=self.key(key))
        if key in self.used_keys:
            assert entry is None
            return
        assert entry is not None and entry.credits == credits
        self.used_keys.add(key)
        self.balance += credits

    @rule(credits=amounts, kind=st.sampled_from([EntryKind.MESSAGE, EntryKind.PHOTO, EntryKind.GIFT]))
    def spend(self, credits, kind):
        try:
            credits_spend(user=self.user, credits=credits, kind=kind)
        except ApplicationError as error:
            expected = "credits_frozen" if self.frozen else "not_enough_credits"
            assert self.frozen or credits > self.balance, "a possible spend was refused"
            assert error.code == expected
            return
        assert not self.frozen, "spent while frozen"
        assert credits <= self.balance, "spent more than the balance"
        self.balance -= credits

    @rule(credits=amounts, key=take_back_keys)
    def take_back(self, credits, key):
        kind = EntryKind.REFUND if key.startswith("refund") else EntryKind.CHARGEBACK
        entry = credits_take_back(user=self.user, credits=credits, kind=kind, key=self.key(key))
        if key in self.used_keys:
            assert entry is None
            return
        self.used_keys.add(key)
        taken = min(credits, self.balance)
        assert (entry.credits, entry.owed) == (-taken, credits - taken)
        self.balance -= taken
        if credits > taken:
            self.owed += credits - taken
            self.frozen = True

    @rule(credits=st.integers(min_value=-30, max_value=30).filter(bool))
    def adjust(self, credits):
        try:
            credits_adjust(user=self.user, credits=credits, staff_name="support", note="property test")
        except ApplicationError as error:
            assert error.code == "not_enough_credits"
            assert self.balance + credits < 0
            return
        assert self.balance + credits >= 0
        self.balance += credits
        if credits > 0 and self.owed:
            paid = min(credits, self.owed)
            self.balance -= paid
            self.owed -= paid
            self.frozen = self.owed > 0

    @rule()
    def unfreeze(self):
        credits_unfreeze(user=self.user, staff_name="support", note="settled")
        self.owed = 0
        self.frozen = False

    @rule(wrong=st.integers(min_value=0, max_value=500))
    def rebuild(self, wrong):
        """A cache gone wrong (written past the services) is rebuilt from the ledger."""
        User.objects.filter(pk=self.user.pk).update(credits=wrong)
        assert credits_rebuild(user=self.user) == (wrong, self.balance)

    @invariant()
    def balance_and_freeze_match_the_ledger(self):
        """The cached balance is the ledger's sum and never negative; frozen exactly while
        credits are owed."""
        row = User.objects.get(pk=self.user.pk)
        assert row.credits == ledger_balance(self.user) == self.balance >= 0
        last = CreditEntry.objects.filter(user=self.user).first()
        assert last is None or last.balance_after == self.balance
        assert (row.credits_owed, row.credits_frozen) == (self.owed, self.frozen)
        assert row.credits_frozen == (row.credits_owed > 0)


def test_the_ledger_keeps_its_invariants(in_site):
    run_state_machine_as_test(
        LedgerMachine,
        settings=settings(
            max_examples=50,
            stateful_step_count=25,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
