"""The ledger under concurrency on real PostgreSQL (issue 6 item 1): parallel spends
cannot overdraw, a key grants or takes back once however many callers race.

Each worker is a thread with its own database connection, working on committed rows
(the test's own transaction would hide them); the rows are removed at the end. The
tests do not use `transaction=True`: its flush would empty the public schema's sites."""

import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from apps.accounts.models import User
from apps.common.exceptions import ApplicationError
from apps.credits.models import CreditEntry, EntryKind
from apps.credits.selectors import ledger_balance
from apps.credits.services import credits_grant, credits_spend, credits_take_back
from conftest import on_site

pytestmark = pytest.mark.django_db

WORKERS = 20


@pytest.fixture
def committed(site, django_db_blocker):
    """run(fn, *args): fn on the site in a thread of its own (own connection, committed
    at once), its result returned. Members made through `member()` are deleted after."""
    made: list[int] = []

    def in_thread(fn: Callable, *args):
        try:
            with on_site(site):
                return fn(*args)
        finally:
            connection.close()

    def run(fn: Callable, *args):
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(in_thread, fn, *args).result()

    def parallel(fn: Callable, args: list) -> list:
        with ThreadPoolExecutor(max_workers=len(args)) as pool:
            return list(pool.map(lambda arg: in_thread(fn, arg), args))

    def member(credits: int = 0) -> int:
        def create() -> int:
            tag = uuid.uuid4().hex[:10]
            user = User.objects.create_user(f"racer{tag}", f"racer{tag}@example.com", "a-Long-passphrase-42")
            if credits:
                credits_grant(user=user, credits=credits, kind=EntryKind.PURCHASE, key=f"setup:{tag}")
            return user.pk

        user_id = run(create)
        made.append(user_id)
        return user_id

    def cleanup() -> None:
        CreditEntry.objects.filter(user_id__in=made).delete()
        User.objects.filter(pk__in=made).delete()

    with django_db_blocker.unblock():
        run.parallel = parallel
        run.member = member
        try:
            yield run
        finally:
            run(cleanup)


def state(user_id: int) -> dict:
    user = User.objects.get(pk=user_id)
    return {
        "credits": user.credits,
        "ledger": ledger_balance(user),
        "owed": user.credits_owed,
        "frozen": user.credits_frozen,
        "entries": list(CreditEntry.objects.filter(user_id=user_id).values_list("kind", "credits")),
    }


def test_twenty_parallel_spends_of_one_credit_from_ten_succeed_exactly_ten_times(committed):
    user_id = committed.member(credits=10)
    start = threading.Barrier(WORKERS)

    def spend(number: int) -> str:
        user = User.objects.get(pk=user_id)  # connected before the start
        start.wait()
        try:
            credits_spend(user=user, credits=1, kind=EntryKind.MESSAGE, reference=f"message:{number}")
        except ApplicationError as error:
            return error.code
        return "ok"

    results = committed.parallel(spend, list(range(WORKERS)))
    assert results.count("ok") == 10
    assert results.count("not_enough_credits") == 10
    after = committed(state, user_id)
    assert after["credits"] == after["ledger"] == 0
    assert sorted(after["entries"]) == [("message", -1)] * 10 + [("purchase", 10)]


def test_parallel_spends_of_different_sizes_never_overdraw(committed):
    user_id = committed.member(credits=10)
    start = threading.Barrier(12)

    def spend(credits: int) -> int:
        user = User.objects.get(pk=user_id)
        start.wait()
        try:
            credits_spend(user=user, credits=credits, kind=EntryKind.GIFT)
        except ApplicationError:
            return 0
        return credits

    spent = committed.parallel(spend, [1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6])
    after = committed(state, user_id)
    assert sum(spent) <= 10
    assert after["credits"] == after["ledger"] == 10 - sum(spent) >= 0


def test_parallel_grants_with_the_same_key_grant_once(committed):
    user_id = committed.member()
    start = threading.Barrier(WORKERS)
    key = f"purchase:{uuid.uuid4().hex}"

    def grant(_number: int) -> bool:
        user = User.objects.get(pk=user_id)
        start.wait()
        return credits_grant(user=user, credits=50, kind=EntryKind.PURCHASE, key=key) is not None

    results = committed.parallel(grant, list(range(WORKERS)))
    assert results.count(True) == 1
    after = committed(state, user_id)
    assert after["credits"] == after["ledger"] == 50
    assert after["entries"] == [("purchase", 50)]


def test_parallel_chargebacks_with_the_same_key_take_back_once(committed):
    user_id = committed.member(credits=30)
    start = threading.Barrier(10)
    key = f"chargeback:{uuid.uuid4().hex}"

    def take_back(_number: int) -> bool:
        user = User.objects.get(pk=user_id)
        start.wait()
        return credits_take_back(user=user, credits=50, kind=EntryKind.CHARGEBACK, key=key) is not None

    results = committed.parallel(take_back, list(range(10)))
    assert results.count(True) == 1
    after = committed(state, user_id)
    assert (after["credits"], after["ledger"], after["owed"], after["frozen"]) == (0, 0, 20, True)


def test_a_chargeback_racing_spends_keeps_the_ledger_whole(committed):
    """Spends and a chargeback at once: whatever order they take, nothing is lost or
    counted twice, and no spend passes after the freeze."""
    user_id = committed.member(credits=10)
    start = threading.Barrier(11)

    def act(number: int) -> str:
        user = User.objects.get(pk=user_id)
        start.wait()
        if number == 0:
            credits_take_back(user=user, credits=8, kind=EntryKind.CHARGEBACK, key=f"cb:{user_id}")
            return "chargeback"
        try:
            credits_spend(user=user, credits=1, kind=EntryKind.MESSAGE)
        except ApplicationError as error:
            return error.code
        return "ok"

    results = committed.parallel(act, list(range(11)))
    spent = results.count("ok")
    after = committed(state, user_id)
    assert after["credits"] == after["ledger"] == max(0, 10 - spent - 8)
    assert after["owed"] == max(0, 8 - (10 - spent))
    assert after["frozen"] == (after["owed"] > 0)
