"""Spending races (issue 7 "spending races never lose or duplicate a message or a
credit"): parallel sends from separate connections, on committed rows."""

import threading
from concurrent.futures import ThreadPoolExecutor

from django.db import connection

from apps.accounts.models import User
from apps.chat.models import Message, Participant
from apps.chat.services import conversation_open, message_send
from apps.chat.tests.helpers import credits_give
from apps.common.exceptions import ApplicationError
from apps.credits.models import CreditEntry
from apps.credits.selectors import ledger_balance
from conftest import on_site
from tests.live import in_thread


def _parallel(site, count: int, send) -> list[str]:
    barrier = threading.Barrier(count)

    def worker(i: int) -> str:
        try:
            with on_site(site):
                barrier.wait(timeout=10)
                send(i)
                return "ok"
        except ApplicationError as error:
            return error.code
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(worker, range(count)))


def _setup(committed, site, credits: int):
    anna, ben = committed.member(site, "Anna"), committed.member(site, "Ben")
    in_thread(credits_give, site, anna.user, credits)

    def open_():
        with on_site(site):
            return conversation_open(user=anna.user, profile_id=ben.pk)

    return anna, ben, in_thread(open_)


def _state(site, anna, ben, conversation):
    def read():
        with on_site(site):
            messages = list(Message.objects.filter(conversation=conversation).values_list("pk", flat=True))
            spent = list(
                CreditEntry.objects.filter(user_id=anna.user_id, kind="message").values_list("reference", flat=True)
            )
            user = User.objects.get(pk=anna.user_id)
            unread = Participant.objects.get(conversation=conversation, user_id=ben.user_id).num_unread
            return messages, spent, user.credits, ledger_balance(user), unread

    return in_thread(read)


def test_parallel_sends_from_five_credits_store_exactly_five(committed, site):
    site.message_credits = 1
    anna, ben, conversation = _setup(committed, site, 5)

    def send(i):
        sender = User.objects.get(pk=anna.user_id)
        message_send(user=sender, conversation_id=conversation.pk, client_id=f"race-{i}", text=f"m{i}")

    results = _parallel(site, 12, send)
    assert sorted(results) == ["not_enough_credits"] * 7 + ["ok"] * 5
    messages, spent, balance, ledger, unread = _state(site, anna, ben, conversation)
    assert len(messages) == 5
    assert sorted(spent) == sorted(f"message:{pk}" for pk in messages)
    assert (balance, ledger, unread) == (0, 0, 5)


def test_a_resend_racing_the_first_send_is_stored_and_paid_once(committed, site):
    site.message_credits = 1
    anna, ben, conversation = _setup(committed, site, 5)

    def send(_i):
        sender = User.objects.get(pk=anna.user_id)
        message_send(user=sender, conversation_id=conversation.pk, client_id="same-one", text="Hi")

    assert _parallel(site, 6, send) == ["ok"] * 6
    messages, spent, balance, ledger, unread = _state(site, anna, ben, conversation)
    assert len(messages) == 1 and spent == [f"message:{messages[0]}"]
    assert (balance, ledger, unread) == (4, 4, 1)
