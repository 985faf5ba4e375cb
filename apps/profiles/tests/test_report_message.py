"""Report a message: each incoming message in the chat (and the conversation itself) can
be reported with a complaint reason, optional text and "also block" (/api/report.php);
the complaint names the message, so the complaints queue shows it with the few around it."""

import json

import pytest

from apps.chat.tests.helpers import credits_give, member, send
from apps.moderation.models import ComplaintCase
from apps.profiles.models import Block, Complaint
from apps.profiles.tests.helpers_view import logged_in
from conftest import on_site

pytestmark = pytest.mark.django_db

URL = "/api/report.php"


def _post(client, body):
    return client.post(URL, data=json.dumps(body), content_type="application/json")


def _complaints(site) -> list[Complaint]:
    with on_site(site):
        return list(Complaint.objects.order_by("pk"))


@pytest.fixture
def chat(site):
    """Rita and Sam each wrote to the other; returns (rita, sam, conversation, messages)."""
    rita, sam = member(site, "Rita"), member(site, "Sam", gender="male")
    credits_give(site, rita.user, 10)
    credits_give(site, sam.user, 10)
    conversation, first = send(site, rita, sam, text="Hi Sam")
    _conversation, second = send(site, sam, rita, text="Send me 200 euro by Western Union")
    _conversation, third = send(site, rita, sam, text="No way")
    return rita, sam, conversation, [first, second, third]


def test_report_message(site, client_for, chat):
    rita, sam, _conversation, messages = chat
    response = _post(logged_in(site, client_for, rita), {"message": messages[1].pk, "reason": "scam"})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["blocked"] is False and "received your report" in body["message"]
    (complaint,) = _complaints(site)
    assert (complaint.reporter_id, complaint.profile_id, complaint.message_id) == (rita.user_id, sam.pk, messages[1].pk)
    assert (complaint.reason, complaint.text, complaint.email) == ("scam", "", rita.user.email)
    case = ComplaintCase.objects.get(site=site, complaint_id=complaint.pk)
    assert (case.message_id, case.member_id, case.reporter_id) == (messages[1].pk, sam.user_id, rita.user_id)
    with on_site(site):
        assert not Block.objects.exists()


def test_report_conversation_names_the_newest_incoming_message_and_blocks(site, client_for, chat):
    rita, sam, conversation, messages = chat
    response = _post(
        logged_in(site, client_for, rita),
        {"conversation": conversation.pk, "reason": "harassment", "text": " Keeps asking ", "block": True},
    )
    assert response.status_code == 201, response.content
    assert response.json()["blocked"] is True
    (complaint,) = _complaints(site)
    assert (complaint.profile_id, complaint.message_id, complaint.text) == (sam.pk, messages[1].pk, "Keeps asking")
    with on_site(site):
        assert Block.objects.filter(blocker=rita.user, blocked=sam).exists()


def test_reporting_again_after_blocking_keeps_the_one_block(site, client_for, chat):
    rita, sam, _conversation, messages = chat
    client = logged_in(site, client_for, rita)
    for _ in range(2):
        assert _post(client, {"message": messages[1].pk, "reason": "scam", "block": True}).status_code == 201
    with on_site(site):
        assert Block.objects.filter(blocker=rita.user, blocked=sam).count() == 1
    assert len(_complaints(site)) == 2


@pytest.mark.parametrize(
    "case", ["own_message", "foreign_conversation_message", "unknown_message", "foreign_conversation"]
)
def test_only_incoming_messages_of_own_conversations(site, client_for, chat, case):
    rita, _sam, conversation, messages = chat
    stranger = member(site, "Stranger")
    client = logged_in(
        site, client_for, {"foreign_conversation_message": stranger, "foreign_conversation": stranger}.get(case, rita)
    )
    body = {
        "own_message": {"message": messages[0].pk},
        "foreign_conversation_message": {"message": messages[1].pk},
        "unknown_message": {"message": 987654321},
        "foreign_conversation": {"conversation": conversation.pk},
    }[case]
    response = _post(client, {**body, "reason": "scam", "block": True})
    assert response.status_code == 404
    assert response.json()["error"]["message"] in (
        "This message could not be found.",
        "This conversation does not exist.",
    )
    assert _complaints(site) == []
    with on_site(site):
        assert not Block.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {"reason": "scam"},
        {"message": "x", "reason": "scam"},
        {"message": 0, "reason": "scam"},
        {"message": 2**70, "reason": "scam"},
        {"message": 1, "reason": "nonsense"},
        {"message": 1, "reason": "scam", "text": "a\u0000b"},
        {"message": 1, "reason": "scam", "text": "x" * 5001},
        {"message": 1, "reason": ["scam"]},
        {"message": 1, "reason": "scam", "block": "maybe"},
        [1, 2, 3],
    ],
)
def test_bad_input_is_400_in_the_error_shape(site, client_for, chat, body):
    rita, *_rest = chat
    response = _post(logged_in(site, client_for, rita), body)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["message"]
    assert _complaints(site) == []


def test_lying_content_type_and_deep_json_are_400(site, client_for, chat):
    rita, *_rest = chat
    client = logged_in(site, client_for, rita)
    response = client.post(URL, data="reason=scam&message=1", content_type="application/json")
    assert response.status_code == 400
    deep = "[" * 5000 + "]" * 5000
    assert client.post(URL, data=deep, content_type="application/json").status_code == 400
    assert _complaints(site) == []


def test_visitors_are_refused_and_csrf_is_checked(site, client_for, chat):
    rita, _sam, _conversation, messages = chat
    response = _post(client_for(site), {"message": messages[1].pk, "reason": "scam"})
    assert response.status_code == 403 and response.json()["error"]["message"]
    strict = client_for(site, enforce_csrf_checks=True)
    with on_site(site):
        strict.force_login(rita.user, backend="allauth.account.auth_backends.AuthenticationBackend")
    assert _post(strict, {"message": messages[1].pk, "reason": "scam"}).status_code == 403
    assert _complaints(site) == []


def test_reports_are_rate_limited_like_complaints(site, client_for, chat, settings):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "complaint": "2/h/ip"}
    rita, _sam, _conversation, messages = chat
    client = logged_in(site, client_for, rita)
    for _ in range(2):
        assert _post(client, {"message": messages[1].pk, "reason": "scam"}).status_code == 201
    response = _post(client, {"message": messages[1].pk, "reason": "scam"})
    assert response.status_code == 429
    assert response.json()["error"]["message"] == "Too many complaints sent, please try again later."
    assert len(_complaints(site)) == 2


def test_a_member_reported_by_several_others_lands_in_the_queue_by_itself(site, client_for, settings):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "complaint": "50/h/ip"}
    sam = member(site, "Sam", gender="male")
    credits_give(site, sam.user, 20)
    reporters = [member(site, f"Reporter{number}") for number in range(3)]
    for number, reporter in enumerate(reporters):
        credits_give(site, reporter.user, 2)
        send(site, reporter, sam, text="Hi")  # they write first (Sam is a free member)
        _conversation, message = send(site, sam, reporter, text=f"Pay me {number}")
        client = logged_in(site, client_for, reporter)
        for _ in range(2):  # the same member twice counts once
            assert _post(client, {"message": message.pk, "reason": "scam"}).status_code == 201
        with on_site(site):
            escalated = list(Complaint.objects.filter(profile=sam, reason="many_reports"))
        assert len(escalated) == (1 if number == 2 else 0)
    (complaint,) = escalated
    assert complaint.reporter_id is None and "3 different members" in complaint.text
    case = ComplaintCase.objects.get(site=site, complaint_id=complaint.pk)
    assert (case.reason, case.member_id) == ("many_reports", sam.user_id)
    # A fourth member while that one is open adds no second one.
    fourth = member(site, "Reporter3")
    credits_give(site, fourth.user, 2)
    send(site, fourth, sam, text="Hi")
    _conversation, message = send(site, sam, fourth, text="Pay me")
    assert _post(logged_in(site, client_for, fourth), {"message": message.pk, "reason": "scam"}).status_code == 201
    with on_site(site):
        assert Complaint.objects.filter(profile=sam, reason="many_reports").count() == 1


def test_members_cannot_choose_the_sites_own_reasons(site, client_for, chat):
    rita, _sam, _conversation, messages = chat
    client = logged_in(site, client_for, rita)
    for reason in ("held_message", "many_reports"):
        assert _post(client, {"message": messages[1].pk, "reason": reason}).status_code == 400
    assert _complaints(site) == []
