"""Chat services (spec §2 chats, §4 Chat, §6, §9): what a message costs, that it is
stored if and only if its credits are spent, the free members' conversation limit,
blocks, messages held for unconfirmed members, resends, read and delete."""

import pytest
from django.core.files.storage import default_storage

from apps.accounts.models import SignupMessage, User, UserStatus
from apps.accounts.selectors import member_totals
from apps.chat.models import Conversation, Message, Participant
from apps.chat.selectors import chats_state, conversation_history
from apps.chat.services import (
    chat_release_held,
    conversation_delete,
    conversation_open,
    conversation_read,
    conversations_delete_with_profile,
    message_send,
)
from apps.chat.tests.helpers import client_id, credits_give, member, send
from apps.common.exceptions import ApplicationError
from apps.credits.models import CreditEntry
from apps.profiles.models import Block, ProfileStatus
from apps.profiles.tests.helpers import jpeg_upload
from apps.tenants.models import Gift, MinimumMessageCost
from conftest import on_site

pytestmark = pytest.mark.django_db


def _entries(user) -> list[tuple[str, int, str]]:
    return list(CreditEntry.objects.filter(user=user, credits__lt=0).values_list("kind", "credits", "reference"))


def _balance(user) -> int:
    user.refresh_from_db(fields=["credits"])
    return user.credits


@pytest.fixture
def pair(site):
    anna, ben = member(site, "Anna"), member(site, "Ben", gender="male")
    credits_give(site, anna.user, 10)
    credits_give(site, ben.user, 10)
    return anna, ben


# --- Costs and the ledger -------------------------------------------------------------


def test_a_text_costs_message_credits_in_one_entry_with_the_message(site, pair):
    anna, ben = pair
    conversation, message = send(site, anna, ben, "Hi Ben")
    with on_site(site):
        assert (message.kind, message.text, message.credits, message.held) == ("text", "Hi Ben", 1, False)
        assert _balance(anna.user) == 9
        assert _entries(anna.user) == [("message", -1, f"message:{message.pk}")]
        theirs = Participant.objects.get(conversation=conversation, user=ben.user)
        mine = Participant.objects.get(conversation=conversation, user=anna.user)
        assert (theirs.num_unread, theirs.listed, theirs.last_message_id) == (1, True, message.pk)
        assert (mine.num_unread, mine.listed, mine.is_starter) == (0, True, True)
        assert member_totals(ben.user)["unreadMessages"] == 1
        assert member_totals(anna.user)["unreadMessages"] == 0


def test_the_senders_country_minimum_replaces_message_credits(site, pair):
    anna, ben = pair
    MinimumMessageCost.objects.create(site=site, country="GB", costs=3)
    site.message_credits = 2
    with on_site(site):
        ben.user.country = "FR"
        ben.user.save(update_fields=["country"])
        anna.user.country = "GB"
        anna.user.save(update_fields=["country"])
    _conversation, from_gb = send(site, anna, ben)
    _conversation, from_fr = send(site, ben, anna)
    with on_site(site):
        assert (from_gb.credits, _balance(anna.user)) == (3, 7)
        assert (from_fr.credits, _balance(ben.user)) == (2, 8)


def test_a_photo_costs_photo_credits_and_is_re_encoded(site, pair):
    anna, ben = pair
    site.photo_credits = 4
    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        message, created = message_send(
            user=anna.user, conversation_id=conversation.pk, client_id=client_id(), photo=jpeg_upload(name="x.exe")
        )
        assert created and message.kind == "photo" and message.credits == 4
        assert message.photo.name.startswith(f"{site.schema_name}/chat/") and message.photo.name.endswith(".jpg")
        assert default_storage.exists(message.photo.name) and default_storage.exists(message.photo_thumb.name)
        assert (message.photo_width, message.photo_height) == (640, 480)
        assert _entries(anna.user) == [("photo", -4, f"message:{message.pk}")]


def test_a_file_that_is_not_a_picture_is_refused_and_costs_nothing(site, pair):
    anna, ben = pair
    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        fake = jpeg_upload()
        fake.seek(0)
        fake.write(b"<script>alert(1)</script>")
        fake.seek(0)
        with pytest.raises(ApplicationError) as raised:
            message_send(user=anna.user, conversation_id=conversation.pk, client_id=client_id(), photo=fake)
        assert raised.value.code == "not_an_image"
        assert (Message.objects.count(), _balance(anna.user)) == (0, 10)


def test_a_gift_costs_gift_credits_and_keeps_a_copy_of_the_gift(site, pair):
    anna, ben = pair
    site.gift_credits = 5
    gift = Gift.objects.filter(site=site).order_by("position").first()
    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        message, _created = message_send(
            user=anna.user, conversation_id=conversation.pk, client_id=client_id(), gift_id=gift.pk
        )
        assert (message.kind, message.gift_id, message.gift_name, message.gift_emoji) == (
            "gift",
            gift.pk,
            gift.name,
            gift.emoji,
        )
        assert _entries(anna.user) == [("gift", -5, f"message:{message.pk}")]


def test_another_sites_or_an_inactive_gift_is_refused(site, gay_site, pair):
    anna, ben = pair
    other_sites = Gift.objects.filter(site=gay_site).first()
    inactive = Gift.objects.filter(site=site).first()
    inactive.is_active = False
    inactive.save()
    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        for gift in (other_sites, inactive):
            with pytest.raises(ApplicationError) as raised:
                message_send(user=anna.user, conversation_id=conversation.pk, client_id=client_id(), gift_id=gift.pk)
            assert raised.value.code == "gift_not_found"
        assert (Message.objects.count(), _balance(anna.user)) == (0, 10)


def test_without_enough_credits_nothing_is_stored_or_spent(site):
    anna, ben = member(site, "Anna"), member(site, "Ben")
    credits_give(site, anna.user, 1)
    site.message_credits = 2
    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        with pytest.raises(ApplicationError) as raised:
            message_send(user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Hi")
        assert (raised.value.code, str(raised.value.message), raised.value.status_code) == (
            "not_enough_credits",
            "You do not have enough credits",
            402,
        )
        assert Message.objects.count() == 0
        assert _entries(anna.user) == []
        assert _balance(anna.user) == 1
        assert Participant.objects.filter(num_unread__gt=0).count() == 0
        assert chats_state(user=anna.user)["chats"] == [] and chats_state(user=ben.user)["chats"] == []


def test_the_ledger_refusal_after_the_message_row_rolls_the_message_back(site, pair):
    """The cheap balance check passes, then the ledger refuses (spending frozen): the
    message row written in the same transaction is gone too."""
    anna, ben = pair
    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        type(anna.user).objects.filter(pk=anna.user.pk).update(credits_frozen=True)
        with pytest.raises(ApplicationError) as raised:
            message_send(user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Hi")
        assert raised.value.code == "credits_frozen"
        assert (Message.objects.count(), _entries(anna.user), _balance(anna.user)) == (0, [], 10)


# --- Text -------------------------------------------------------------------------------


def test_html_and_script_are_kept_as_plain_text(site, pair):
    anna, ben = pair
    text = '<script>alert("x")</script><b>bold</b> &amp; <img src=x onerror=alert(1)>'
    conversation, message = send(site, anna, ben, text)
    with on_site(site):
        message.refresh_from_db()
        assert message.text == text
        history = conversation_history(user=ben.user, conversation_id=conversation.pk)
        assert history["messages"][0]["text"] == text
        assert chats_state(user=ben.user)["chats"][0]["last_message"]["text"] == text


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        ("   ", "message_empty", "Write a message."),
        ("x" * 1001, "message_too_long", "Your message is too long. The maximum is 1000 characters."),
    ],
)
def test_empty_and_too_long_texts_are_refused_with_the_field(site, pair, text, code, message):
    anna, ben = pair
    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        with pytest.raises(ApplicationError) as raised:
            message_send(user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text=text)
        assert (raised.value.code, str(raised.value.message)) == (code, message)
        assert raised.value.extra == {"fields": {"text": [message]}}
        assert Message.objects.count() == 0


def test_the_sites_message_length_is_the_limit(site, pair):
    anna, ben = pair
    site.message_length = 10
    _conversation, message = send(site, anna, ben, "x" * 10)
    assert message.text == "x" * 10
    with pytest.raises(ApplicationError):
        send(site, anna, ben, "x" * 11)


# --- Resending ----------------------------------------------------------------------------


def test_the_same_client_id_twice_stores_one_message_and_spends_once(site, pair):
    anna, ben = pair
    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        first, created_first = message_send(user=anna.user, conversation_id=conversation.pk, client_id="abc", text="Hi")
        again, created_again = message_send(user=anna.user, conversation_id=conversation.pk, client_id="abc", text="Hi")
        assert (created_first, created_again, again.pk) == (True, False, first.pk)
        assert Message.objects.count() == 1
        assert len(_entries(anna.user)) == 1 and _balance(anna.user) == 9
        assert Participant.objects.get(conversation=conversation, user=ben.user).num_unread == 1
        # Another member may use the same client id.
        _other, created = message_send(user=ben.user, conversation_id=conversation.pk, client_id="abc", text="Yo")
        assert created


@pytest.mark.parametrize("since", ["last_credit_spent", "blocked"])
def test_a_resend_gets_the_first_message_whatever_refuses_a_new_one_now(site, pair, since):
    """The resend check is the message's INSERT (ON CONFLICT DO NOTHING) on the way in,
    and on the way out of every refusal: a resend after the first one spent the last
    credit, or after a block, still gets the first message, not the refusal."""
    anna, ben = pair
    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        if since == "last_credit_spent":
            User.objects.filter(pk=anna.user.pk).update(credits=1)
        first, _created = message_send(user=anna.user, conversation_id=conversation.pk, client_id="once", text="Hi")
        if since == "blocked":
            Block.objects.create(blocker=ben.user, blocked=anna)
        again, created = message_send(user=anna.user, conversation_id=conversation.pk, client_id="once", text="Hi")
        assert (created, again.pk) == (False, first.pk)
        with pytest.raises(ApplicationError) as raised:  # a new message is refused
            message_send(user=anna.user, conversation_id=conversation.pk, client_id="new", text="Hi")
        assert raised.value.code == ("not_enough_credits" if since == "last_credit_spent" else "profile_not_available")
        assert Message.objects.count() == 1 and len(_entries(anna.user)) == 1


def test_a_text_message_takes_a_fixed_number_of_queries(site, pair, django_assert_num_queries):
    """What the sender waits for: the lock on their account, the two participant rows
    locked with the conversation, both profiles and the block check in one statement,
    the message (whose INSERT is the resend check: ON CONFLICT DO NOTHING), the ledger
    (the balance and its entry in one statement), the conversation and both lists in one
    statement that also counts the recipient's unread badge, the recipient's notice (one
    upsert, which checks for a device itself), and the outer transaction's savepoint (in a
    test). Nothing is counted after commit."""
    anna, ben = pair
    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        message_send(user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Hi")
        with django_assert_num_queries(8):
            message_send(user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Again")
        # The first message of a free member also counts the conversations they started.
        other = member(site, "Cleo")
        opened = conversation_open(user=anna.user, profile_id=other.pk)
        with django_assert_num_queries(9):
            message_send(user=anna.user, conversation_id=opened.pk, client_id=client_id(), text="Hi Cleo")


def test_a_messages_insert_is_compiled_once(site, pair, monkeypatch):
    """The INSERT is the model's insert compiler's, kept after its first use: later
    messages only prepare their values (and are stored the same: a text, a gift)."""
    from django.db.models.sql.compiler import SQLInsertCompiler

    anna, ben = pair
    compiled = []
    as_sql = SQLInsertCompiler.as_sql

    def as_sql_noted(self, *args, **kwargs):
        if self.query.model is Message:
            compiled.append(self.query.model)
        return as_sql(self, *args, **kwargs)

    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        message_send(user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Hi")
        monkeypatch.setattr(SQLInsertCompiler, "as_sql", as_sql_noted)
        again, _created = message_send(
            user=anna.user, conversation_id=conversation.pk, client_id="kept-insert", text="Again \u2764"
        )
        stored = Message.objects.get(pk=again.pk)
    assert compiled == []
    assert (stored.text, stored.client_id, stored.sender_id, stored.kind, stored.held) == (
        "Again \u2764",
        "kept-insert",
        anna.user.pk,
        again.kind,
        False,
    )
    assert stored.created == again.created and stored.created is not None


# --- Who may write to whom -------------------------------------------------------------------


def test_a_free_member_starts_two_conversations_then_needs_premium(site):
    anna = member(site, "Anna")
    others = [member(site, f"M{i}") for i in range(4)]
    credits_give(site, anna.user, 20)
    send(site, anna, others[0])
    send(site, anna, others[1])
    with on_site(site):
        with pytest.raises(ApplicationError) as raised:
            conversation_open(user=anna.user, profile_id=others[2].pk)
        assert (raised.value.code, str(raised.value.message), raised.value.status_code) == (
            "premium_required",
            "This feature is only available for premium members.",
            403,
        )
        assert Conversation.objects.filter(participants__profile=others[2]).count() == 0
        # The two started ones go on.
        send(site, anna, others[0], "again")


def test_empty_conversations_do_not_count_but_the_first_message_checks_the_limit(site):
    anna = member(site, "Anna")
    others = [member(site, f"M{i}") for i in range(3)]
    credits_give(site, anna.user, 20)
    with on_site(site):
        opened = [conversation_open(user=anna.user, profile_id=other.pk) for other in others]
        for conversation in opened[:2]:
            message_send(user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Hi")
        with pytest.raises(ApplicationError) as raised:
            message_send(user=anna.user, conversation_id=opened[2].pk, client_id=client_id(), text="Hi")
        assert raised.value.code == "premium_required"
        assert Message.objects.filter(conversation=opened[2]).count() == 0
        assert _balance(anna.user) == 18


def test_answering_a_conversation_someone_else_started_is_free_of_the_limit(site):
    anna = member(site, "Anna")
    others = [member(site, f"M{i}") for i in range(3)]
    credits_give(site, anna.user, 20)
    for other in others:
        credits_give(site, other.user, 5)
    send(site, anna, others[0])
    send(site, anna, others[1])
    send(site, others[2], anna, "Hi Anna")
    _conversation, answer = send(site, anna, others[2], "Hi back")
    assert answer.pk


def test_a_premium_member_starts_as_many_as_they_like(site):
    anna = member(site, "Anna", user_fields={"paid_user": True})
    credits_give(site, anna.user, 20)
    for i in range(4):
        send(site, anna, member(site, f"M{i}"))
    with on_site(site):
        assert Participant.objects.filter(user=anna.user, is_starter=True).count() == 4


@pytest.mark.parametrize("who", ["i_blocked", "blocked_me"])
def test_blocked_members_cannot_open_or_write(site, pair, who):
    anna, ben = pair
    conversation, _message = send(site, anna, ben)
    with on_site(site):
        if who == "i_blocked":
            Block.objects.create(blocker=anna.user, blocked=ben)
        else:
            Block.objects.create(blocker=ben.user, blocked=anna)
        for sender, profile in ((anna, ben), (ben, anna)):
            with pytest.raises(ApplicationError) as raised:
                conversation_open(user=sender.user, profile_id=profile.pk)
            assert raised.value.code == "profile_not_available"
            with pytest.raises(ApplicationError) as raised:
                message_send(user=sender.user, conversation_id=conversation.pk, client_id=client_id(), text="Hi")
            assert raised.value.code == "profile_not_available"
        assert Message.objects.count() == 1
        assert chats_state(user=anna.user)["chats"] == [] and chats_state(user=ben.user)["chats"] == []
        assert member_totals(ben.user)["unreadMessages"] == 0


@pytest.mark.parametrize("case", ["disabled", "invisible", "deleted", "self", "unknown"])
def test_profiles_others_may_not_see_cannot_be_opened(site, case):
    anna = member(site, "Anna")
    target = {
        "disabled": lambda: member(site, "Dis", status=ProfileStatus.DISABLED).pk,
        "invisible": lambda: member(site, "Inv", user_fields={"invisible": True}).pk,
        "deleted": lambda: member(site, "Del", user_fields={"status": UserStatus.DELETED}).pk,
        "self": lambda: anna.pk,
        "unknown": lambda: 987654,
    }[case]()
    with on_site(site):
        with pytest.raises(ApplicationError) as raised:
            conversation_open(user=anna.user, profile_id=target)
        assert raised.value.code == ("chat_self" if case == "self" else "profile_not_available")
        assert Conversation.objects.count() == 0


def test_another_sites_profile_cannot_be_opened(site, gay_site):
    anna = member(site, "Anna")
    other = member(gay_site, "Other", gender="male")
    with on_site(site):
        with pytest.raises(ApplicationError) as raised:
            conversation_open(user=anna.user, profile_id=other.pk)
        assert raised.value.status_code == 404


def test_someone_elses_conversation_is_not_found(site, pair):
    anna, ben = pair
    carl = member(site, "Carl")
    credits_give(site, carl.user, 5)
    conversation, _message = send(site, anna, ben)
    with on_site(site):
        for call in (
            lambda: message_send(user=carl.user, conversation_id=conversation.pk, client_id=client_id(), text="x"),
            lambda: conversation_history(user=carl.user, conversation_id=conversation.pk),
            lambda: conversation_read(user=carl.user, conversation_id=conversation.pk),
            lambda: conversation_delete(user=carl.user, conversation_id=conversation.pk),
        ):
            with pytest.raises(ApplicationError) as raised:
                call()
            assert (raised.value.code, raised.value.status_code) == ("conversation_not_found", 404)


def test_an_existing_conversation_is_reused_from_either_side(site, pair):
    anna, ben = pair
    with on_site(site):
        first = conversation_open(user=anna.user, profile_id=ben.pk)
        assert conversation_open(user=ben.user, profile_id=anna.pk).pk == first.pk
        assert conversation_open(user=anna.user, profile_id=ben.pk).pk == first.pk
        assert Conversation.objects.count() == 1 and Participant.objects.count() == 2


def test_demo_profiles_without_a_member_receive_messages(site):
    anna = member(site, "Anna")
    credits_give(site, anna.user, 3)
    with on_site(site):
        from apps.profiles.models import Profile

        demo = Profile.objects.filter(user__isnull=True, status=ProfileStatus.ACTIVE).first() or Profile.objects.create(
            name="Demo", status=ProfileStatus.ACTIVE, gender="male", country="GB"
        )
    _conversation, message = send(site, anna, demo)
    with on_site(site):
        assert chats_state(user=anna.user)["chats"][0]["profile"] == demo.pk
        assert message.pk


# --- Unconfirmed recipients ------------------------------------------------------------------


def test_messages_to_an_unconfirmed_member_are_held_until_they_confirm(site, pair):
    anna, ben = pair
    conversation, _first = send(site, anna, ben, "Before")
    with on_site(site):
        type(ben.user).objects.filter(pk=ben.user.pk).update(status=UserStatus.NOT_CONFIRMED)
        Profile = type(ben)
        Profile.objects.filter(pk=ben.pk).update(status=ProfileStatus.DISABLED)
        conversation_read(user=ben.user, conversation_id=conversation.pk)
        held, _created = message_send(
            user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="While unconfirmed"
        )
        assert held.held is True and _balance(anna.user) == 8
        ben.user.refresh_from_db()
        assert [
            m["text"] for m in conversation_history(user=ben.user, conversation_id=conversation.pk)["messages"]
        ] == ["Before"]
        assert member_totals(ben.user)["unreadMessages"] == 0
        assert chats_state(user=ben.user)["chats"][0]["last_message"]["text"] == "Before"
        mine = conversation_history(user=anna.user, conversation_id=conversation.pk)["messages"]
        assert [(m["text"], m["held"]) for m in mine] == [("Before", False), ("While unconfirmed", True)]

        # Confirming (apps.accounts) releases them.
        type(ben.user).objects.filter(pk=ben.user.pk).update(status=UserStatus.ACTIVE)
        Profile.objects.filter(pk=ben.pk).update(status=ProfileStatus.ACTIVE)
        ben.user.refresh_from_db()
        assert chat_release_held(user=ben.user) == 1
        assert chat_release_held(user=ben.user) == 0
        assert [
            m["text"] for m in conversation_history(user=ben.user, conversation_id=conversation.pk)["messages"]
        ] == [
            "Before",
            "While unconfirmed",
        ]
        assert member_totals(ben.user)["unreadMessages"] == 1
        assert chats_state(user=ben.user)["chats"][0]["last_message"]["text"] == "While unconfirmed"


def test_an_unconfirmed_member_cannot_send(site, pair):
    anna, ben = pair
    with on_site(site):
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        anna.user.status = UserStatus.NOT_CONFIRMED
        with pytest.raises(ApplicationError) as raised:
            message_send(user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Hi")
        assert raised.value.code == "email_not_confirmed"


def test_signup_messages_are_delivered_once_on_confirmation(site, pair):
    anna, ben = pair
    with on_site(site):
        SignupMessage.objects.create(user=anna.user, profile_id=ben.pk, text="Hello from the signup <b>form</b>")
        chat_release_held(user=anna.user)
        chat_release_held(user=anna.user)
        message = Message.objects.get()
        assert (message.sender_id, message.text, message.credits) == (
            anna.user_id,
            "Hello from the signup <b>form</b>",
            0,
        )
        assert SignupMessage.objects.get().delivered_at is not None
        assert member_totals(ben.user)["unreadMessages"] == 1
        assert _balance(anna.user) == 10


# --- Read and delete -----------------------------------------------------------------------------


def test_reading_sets_unread_to_zero_and_marks_the_messages_read(site, pair):
    anna, ben = pair
    conversation, _first = send(site, anna, ben, "one")
    _conversation, second = send(site, anna, ben, "two")
    with on_site(site):
        assert chats_state(user=ben.user)["chats"][0]["num_unread_messages"] == 2
        assert conversation_read(user=ben.user, conversation_id=conversation.pk) == 2
        assert chats_state(user=ben.user)["chats"][0]["num_unread_messages"] == 0
        assert Message.objects.filter(read_at__isnull=False, delivered_at__isnull=False).count() == 2
        assert Participant.objects.get(user=ben.user).last_read_message_id == second.pk
        assert conversation_read(user=ben.user, conversation_id=conversation.pk) == 0


def test_deleting_hides_the_chat_for_that_member_only_until_a_new_message(site, pair):
    anna, ben = pair
    conversation, _message = send(site, anna, ben, "old")
    with on_site(site):
        conversation_delete(user=ben.user, conversation_id=conversation.pk)
        conversation_delete(user=ben.user, conversation_id=conversation.pk)  # Again: fine.
        assert chats_state(user=ben.user)["chats"] == []
        assert member_totals(ben.user)["unreadMessages"] == 0
        assert [c["conversation"] for c in chats_state(user=anna.user)["chats"]] == [conversation.pk]
        assert conversation_history(user=ben.user, conversation_id=conversation.pk)["messages"] == []
    send(site, anna, ben, "new")
    with on_site(site):
        assert chats_state(user=ben.user)["chats"][0]["num_unread_messages"] == 1
        texts = [m["text"] for m in conversation_history(user=ben.user, conversation_id=conversation.pk)["messages"]]
        assert texts == ["new"]


def test_deleting_by_profile_deletes_every_conversation_with_that_profile(site, pair):
    anna, ben = pair
    carl = member(site, "Carl")
    credits_give(site, carl.user, 5)
    send(site, anna, ben)
    send(site, carl, ben)
    send(site, anna, carl)
    with on_site(site):
        assert conversations_delete_with_profile(user=anna.user, profile_id=ben.pk) == 1
        assert [c["profile"] for c in chats_state(user=anna.user)["chats"]] == [carl.pk]
        assert len(chats_state(user=ben.user)["chats"]) == 2


def test_the_chat_list_is_newest_first_with_the_other_profile(site, pair):
    anna, ben = pair
    carl = member(site, "Carl")
    credits_give(site, carl.user, 5)
    first, _ = send(site, ben, anna, "from Ben")
    second, _ = send(site, carl, anna, "from Carl")
    with on_site(site):
        chats = chats_state(user=anna.user)["chats"]
        assert [(c["conversation"], c["profile"], c["name"], c["num_unread_messages"]) for c in chats] == [
            (second.pk, carl.pk, "Carl", 1),
            (first.pk, ben.pk, "Ben", 1),
        ]
        assert chats[0]["last_message"]["mine"] is False
    send(site, anna, ben, "answer")
    with on_site(site):
        assert [c["conversation"] for c in chats_state(user=anna.user)["chats"]] == [first.pk, second.pk]


def test_older_messages_beyond_the_history_limit_are_hidden(site, pair):
    anna, ben = pair
    credits_give(site, anna.user, 10)
    for i in range(6):
        conversation, _message = send(site, anna, ben, f"m{i}")
    with on_site(site):
        history = conversation_history(user=ben.user, conversation_id=conversation.pk, limit=4)
        assert [m["text"] for m in history["messages"]] == ["m2", "m3", "m4", "m5"]
        assert history["has_older"] is True
        history = conversation_history(user=ben.user, conversation_id=conversation.pk, limit=6)
        assert history["has_older"] is False


def test_confirming_the_email_address_releases_held_messages(site, pair):
    """apps.accounts runs the confirmation hooks (member_confirmed_notify) inside the
    confirming transaction; the chat's hook is registered in apps.chat.apps."""
    from apps.accounts.services.signup import member_confirmed_notify

    anna, ben = pair
    with on_site(site):
        type(ben.user).objects.filter(pk=ben.user.pk).update(status=UserStatus.NOT_CONFIRMED)
        conversation = conversation_open(user=anna.user, profile_id=ben.pk)
        message_send(user=anna.user, conversation_id=conversation.pk, client_id=client_id(), text="Held")
        SignupMessage.objects.create(user=ben.user, profile_id=anna.pk, text="Mine from the signup")
        assert member_totals(ben.user)["unreadMessages"] == 0
        type(ben.user).objects.filter(pk=ben.user.pk).update(status=UserStatus.ACTIVE)
        ben.user.refresh_from_db()
        member_confirmed_notify(ben.user)
        assert member_totals(ben.user)["unreadMessages"] == 1
        assert member_totals(anna.user)["unreadMessages"] == 1
        texts = [m["text"] for m in conversation_history(user=ben.user, conversation_id=conversation.pk)["messages"]]
        assert texts == ["Held", "Mine from the signup"]


def test_download_my_data_holds_the_messages_the_member_wrote(site, pair):
    from apps.accounts.services.export import member_export_data

    anna, ben = pair
    conversation, message = send(site, anna, ben, "Mine <i>only</i>")
    send(site, ben, anna, "Not Anna's")
    with on_site(site):
        exported = member_export_data(user=anna.user)["messages"]
    assert [(m["id"], m["conversation"], m["to_profile"], m["text"]) for m in exported] == [
        (message.pk, conversation.pk, ben.pk, "Mine <i>only</i>")
    ]


def test_the_data_export_lists_chat_photos_only_as_paths(site, pair):
    """Issue 13 item 11: the ZIP holds the photo files the member sent, named in data.json;
    photos sent to the member stay out (the sender's data)."""
    import io
    import json
    import zipfile

    from apps.accounts.services.export import member_export_build

    anna, ben = pair
    credits_give(site, ben.user, 10)
    _conversation, sent = send(site, anna, ben, "", photo=jpeg_upload(320, 240, colour=(10, 200, 30)))
    send(site, ben, anna, "", photo=jpeg_upload(300, 300))
    with on_site(site):
        archive = zipfile.ZipFile(io.BytesIO(member_export_build(user=anna.user).read()))
    data = json.loads(archive.read("data.json"))
    photos = [m["photo"] for m in data["messages"] if m["kind"] == "photo"]
    assert len(photos) == 1 and photos[0].startswith("chat/")
    chat_files = [name for name in archive.namelist() if name.startswith("chat/")]
    assert chat_files == photos
    with default_storage.open(sent.photo.name, "rb") as stored:
        assert archive.read(photos[0]) == stored.read()


# --- Statements prepared by PostgreSQL ----------------------------------------------------


def _prepared_like(fragment: str) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", [f"%{fragment}%"])
        return cursor.fetchone()[0]


def test_a_messages_statements_are_prepared_once_per_connection_and_stay_in_their_site(two_sites):
    """The sender's and the participants' locking reads, the INSERT, the listing statement,
    the credit spend and the notice are prepared by PostgreSQL on the connection
    (apps.common.prepared) and run by name after; messages of two sites sent in turn on
    the same connection each land in their own site's tables, paid from their own
    sender's credits."""
    pairs = {}
    for site in two_sites:
        anna, ben = member(site, "Anna"), member(site, "Ben", gender="male")
        credits_give(site, anna.user, 5)
        pairs[site] = (anna, ben)
    for round_ in range(2):
        for site in two_sites:
            anna, ben = pairs[site]
            send(site, anna, ben, f"{site.schema_name} {round_}")
    for fragment in (
        'INSERT INTO "chat_message"',
        "WITH spent AS",
        "UPDATE chat_conversation SET started_by_id",
        'FROM "chat_participant"',
        'FROM "accounts_user"',
        "INSERT INTO notifications_notice",
    ):
        assert _prepared_like(fragment) >= 1, fragment
    for site in two_sites:
        anna, _ben = pairs[site]
        with on_site(site):
            assert sorted(Message.objects.values_list("text", flat=True)) == [
                f"{site.schema_name} 0",
                f"{site.schema_name} 1",
            ]
            assert _balance(anna.user) == 3
