"""The staff's second step is set up only through a one-time link, never by the password
alone (apps.accounts.services.staff_enrolment, apps.accounts.admin_login): the link is
made by `manage.py staff_create` or by another operator's "Reset the second step"
(mailed), works once within 24 hours, and is recorded in the audit trail."""

import datetime
import io
import re

import pytest
from django.contrib.auth import SESSION_KEY
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice

from apps.accounts.models import StaffEnrolmentLink, User
from apps.accounts.services.staff_enrolment import token_hash
from apps.support.models import AuditEntry
from tests.staff import STAFF_PASSWORD, staff_client, staff_member, staff_set_up_link, totp_code

pytestmark = pytest.mark.django_db

ENROL_URL = "/admin/login/enrol/"
ASK_ANOTHER = "Your second step is not set up. Ask another operator to reset your second step"
NOT_VALID = "This link to set up the second step is not valid."
USED = "This link to set up the second step has already been used."
EXPIRED = "This link to set up the second step has expired."


def admin_client(address: str = "10.2.0.1") -> Client:
    return Client(HTTP_HOST="admin.localhost", REMOTE_ADDR=address)


def password_step(client: Client, user: User):
    return client.post("/admin/login/", {"username": user.username, "password": STAFF_PASSWORD, "next": "/admin/"})


def secret_on(body: str) -> str:
    match = re.search(r'id="staff-enrol-secret"[^>]*>([A-Z2-7 ]+)</code>', body)
    assert match, body
    return match.group(1)


def enrol(client: Client, link: str, user: User):
    """Follow `link`, log in with the password, confirm the secret shown: the response of
    the confirmation."""
    response = client.get(link)
    assert response.status_code == 302 and response["Location"] == "/admin/login/?next=%2Fadmin%2F"
    assert password_step(client, user)["Location"].startswith(ENROL_URL)
    secret = secret_on(client.get(ENROL_URL).content.decode())
    return client.post(ENROL_URL, {"code": totp_code(secret), "next": "/admin/"})


def in_admin(client: Client) -> bool:
    return client.get("/admin/").status_code == 200


def trail(action: str, user: User) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(action=action, target__startswith=f"accounts.User:{user.pk} "))


# --- The password alone -------------------------------------------------------------


def test_staff_second_step_is_not_trust_on_first_use():
    """A new staff member (or one whose step was reset) who has only the password is
    told to ask another operator; no device is made, no secret is shown."""
    newcomer = staff_member("support", enrolled=False)
    client = admin_client()
    response = password_step(client, newcomer)
    assert response.status_code == 403
    body = response.content.decode()
    assert ASK_ANOTHER in body and 'data-testid="staff-step-notice"' in body
    assert SESSION_KEY not in client.session  # the password opened nothing
    assert not TOTPDevice.objects.filter(user=newcomer).exists()
    # Neither the enrolment page nor the code page shows a secret to this browser.
    for url in (ENROL_URL, "/admin/login/code/"):
        assert client.get(url)["Location"] == "/admin/login/"
    assert not TOTPDevice.objects.filter(user=newcomer).exists()
    assert not in_admin(client)


def test_staff_second_step_reset_leaves_the_password_alone_powerless():
    """After a reset by another operator, whoever knows the password (but has not the
    mailed link) sets up nothing."""
    operator = staff_client(staff_member("superuser"))
    agent = staff_member("support")
    operator.post("/admin/accounts/user/", {"action": "second_step_reset", "_selected_action": [agent.pk]})
    assert not TOTPDevice.objects.filter(user=agent).exists()
    thief = admin_client("10.2.0.66")
    response = password_step(thief, agent)
    assert response.status_code == 403 and ASK_ANOTHER in response.content.decode()
    assert thief.get(ENROL_URL)["Location"] == "/admin/login/"
    assert not TOTPDevice.objects.filter(user=agent).exists()


def test_staff_second_step_messages_are_translated():
    """The admin speaks English (apps.common.middleware.SiteLocaleMiddleware); the texts
    are in the catalogues for when it speaks more, and the mail goes out in the staff
    member's language."""
    from django.utils.translation import override

    from apps.accounts.mail import mail_render
    from apps.accounts.services.staff_enrolment import enrolment_link_valid
    from apps.common.exceptions import ApplicationError

    with override("fr"), pytest.raises(ApplicationError) as refused:
        enrolment_link_valid("A" * 43)
    assert str(refused.value.message).startswith("Ce lien de configuration de la deuxième étape n’est pas valide.")
    subject, text, _html = mail_render(
        template_prefix="admin/accounts/email/staff_enrolment",
        context={"user": staff_member("support"), "by": "bob", "link": "http://admin.localhost/x/", "hours": 24},
        language="fr",
    )
    assert subject == "Configurez la deuxième étape de l’administration"
    assert "bob a réinitialisé la deuxième étape" in text and "expire après 24 heures" in text


# --- The link -----------------------------------------------------------------------


def test_staff_second_step_link_enrols_once():
    newcomer = staff_member("operators", enrolled=False)
    link = staff_set_up_link(newcomer)
    client = admin_client()
    response = enrol(client, link, newcomer)
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert in_admin(client)
    assert TOTPDevice.objects.filter(user=newcomer, confirmed=True).count() == 1
    row = StaffEnrolmentLink.objects.get(user=newcomer)
    assert row.used_at is not None
    # Used: refused with the reason, to anyone, and nothing changes.
    again = admin_client("10.2.0.2")
    response = again.get(link)
    assert response.status_code == 410 and USED in response.content.decode()
    assert SESSION_KEY not in again.session
    assert TOTPDevice.objects.filter(user=newcomer).count() == 1


def test_staff_second_step_link_is_stored_hashed():
    newcomer = staff_member("operators", enrolled=False)
    token = staff_set_up_link(newcomer).rstrip("/").rsplit("/", 1)[1]
    row = StaffEnrolmentLink.objects.get(user=newcomer)
    assert row.token_hash == token_hash(token) and token not in row.token_hash
    assert row.expires - row.created == datetime.timedelta(hours=24)


def test_staff_second_step_expired_link_is_refused():
    newcomer = staff_member("operators", enrolled=False)
    link = staff_set_up_link(newcomer)
    StaffEnrolmentLink.objects.filter(user=newcomer).update(expires=timezone.now() - datetime.timedelta(seconds=1))
    client = admin_client()
    response = client.get(link)
    assert response.status_code == 410 and EXPIRED in response.content.decode()
    response = password_step(client, newcomer)
    assert response.status_code == 403 and ASK_ANOTHER in response.content.decode()
    assert not TOTPDevice.objects.filter(user=newcomer).exists()


def test_staff_second_step_link_expiring_during_the_set_up_enrols_nothing():
    newcomer = staff_member("operators", enrolled=False)
    client = admin_client()
    client.get(staff_set_up_link(newcomer))
    password_step(client, newcomer)
    secret = secret_on(client.get(ENROL_URL).content.decode())
    StaffEnrolmentLink.objects.filter(user=newcomer).update(expires=timezone.now() - datetime.timedelta(seconds=1))
    response = client.post(ENROL_URL, {"code": totp_code(secret), "next": "/admin/"})
    assert response.status_code == 403 and ASK_ANOTHER in response.content.decode()
    assert not TOTPDevice.objects.filter(user=newcomer, confirmed=True).exists()
    assert not in_admin(client)


@pytest.mark.parametrize(
    "token",
    [
        "A" * 43,  # the right shape, made by nobody
        "short",
        "A" * 44,
        "A" * 5000,
        "%C3%A9" + "A" * 41,
        "A" * 42 + "=",
        "%00" + "A" * 42,
    ],
)
def test_staff_second_step_forged_link_is_refused(token):
    newcomer = staff_member("operators", enrolled=False)
    staff_set_up_link(newcomer)
    client = admin_client()
    response = client.get(f"{ENROL_URL}{token}/")
    if "%00" in token:  # a NUL byte in the address is refused before any view (apps.common.middleware)
        assert response.status_code == 400
    else:
        assert response.status_code == 404 and NOT_VALID in response.content.decode()
    assert password_step(client, newcomer).status_code == 403
    assert not TOTPDevice.objects.filter(user=newcomer).exists()


def test_staff_second_step_link_is_only_for_its_staff_member():
    owner = staff_member("operators", enrolled=False)
    other = staff_member("support", enrolled=False)
    link = staff_set_up_link(owner)
    client = admin_client()
    client.get(link)
    response = password_step(client, other)
    assert response.status_code == 403 and ASK_ANOTHER in response.content.decode()
    assert not TOTPDevice.objects.filter(user__in=[owner, other]).exists()
    # The owner's link still works.
    assert enrol(admin_client("10.2.0.3"), link, owner).status_code == 302


def test_staff_second_step_newer_link_replaces_the_older():
    newcomer = staff_member("operators", enrolled=False)
    older = staff_set_up_link(newcomer)
    newer = staff_set_up_link(newcomer)
    response = admin_client().get(older)
    assert response.status_code == 404 and NOT_VALID in response.content.decode()
    assert enrol(admin_client("10.2.0.4"), newer, newcomer).status_code == 302


def test_staff_second_step_link_in_two_browsers_sets_up_one_device():
    newcomer = staff_member("operators", enrolled=False)
    link = staff_set_up_link(newcomer)
    first, second = admin_client("10.2.0.5"), admin_client("10.2.0.6")
    secrets_shown = []
    for client in (first, second):
        client.get(link)
        password_step(client, newcomer)
        secrets_shown.append(secret_on(client.get(ENROL_URL).content.decode()))
    assert secrets_shown[0] != secrets_shown[1]  # only the secret shown last can be confirmed
    response = second.post(ENROL_URL, {"code": totp_code(secrets_shown[1]), "next": "/admin/"})
    assert response.status_code == 302 and in_admin(second)
    # The link is used up: the first browser gets no device of its own, and no admin.
    response = first.post(ENROL_URL, {"code": totp_code(secrets_shown[0]), "next": "/admin/"})
    assert response["Location"].startswith("/admin/login/code/")
    assert not in_admin(first)
    assert TOTPDevice.objects.filter(user=newcomer).count() == 1


def test_staff_second_step_link_does_not_cross_a_verified_session():
    operator = staff_member("superuser")
    client = staff_client(operator)
    newcomer = staff_member("support", enrolled=False)
    response = client.get(staff_set_up_link(newcomer))
    assert response.status_code == 409 and "Log out, then open the link again" in response.content.decode()
    assert in_admin(client)  # still the operator's session, untouched


def test_staff_second_step_enrolled_staff_cannot_use_a_link_to_add_a_device():
    agent = staff_member("support")
    link = staff_set_up_link(agent)
    client = admin_client()
    client.get(link)
    response = password_step(client, agent)
    assert response["Location"].startswith("/admin/login/code/")
    assert client.get(ENROL_URL)["Location"].startswith("/admin/login/code/")
    assert TOTPDevice.objects.filter(user=agent).count() == 1


# --- Who makes links, and the trail -------------------------------------------------


def test_staff_second_step_reset_mails_a_link_and_is_audited(django_capture_on_commit_callbacks, mailoutbox):
    operator = staff_member("superuser")
    agent = staff_member("support")
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client(operator).post(
            "/admin/accounts/user/", {"action": "second_step_reset", "_selected_action": [agent.pk]}
        )
    assert response.status_code == 302
    assert len(mailoutbox) == 1 and mailoutbox[0].to == [agent.email]
    mail = mailoutbox[0].body
    assert operator.username in mail and "24 hours" in mail
    link = re.search(r"http://admin\.localhost(/admin/login/enrol/[A-Za-z0-9_-]{43}/)", mail).group(1)
    (made,) = trail("staff.second_step.link_made", agent)
    assert made.actor == operator.username and made.actor_id == operator.pk
    assert made.reason == "second step reset" and made.created <= timezone.now()
    assert enrol(admin_client(), link, agent).status_code == 302
    (enrolled,) = trail("staff.second_step.enrolled", agent)
    assert enrolled.actor == agent.username and enrolled.reason == operator.username


def test_staff_second_step_nobody_resets_their_own():
    operator = staff_member("superuser")
    client = staff_client(operator)
    response = client.post(
        "/admin/accounts/user/", {"action": "second_step_reset", "_selected_action": [operator.pk]}, follow=True
    )
    assert "You cannot reset your own second step" in response.content.decode()
    assert TOTPDevice.objects.filter(user=operator, confirmed=True).exists()
    assert not StaffEnrolmentLink.objects.filter(user=operator).exists()
    assert not trail("staff.second_step.link_made", operator)


def test_staff_second_step_reset_needs_an_address_for_the_link():
    operator = staff_client(staff_member("superuser"))
    agent = staff_member("support")
    User.objects.filter(pk=agent.pk).update(email="")
    response = operator.post(
        "/admin/accounts/user/", {"action": "second_step_reset", "_selected_action": [agent.pk]}, follow=True
    )
    assert "has no e-mail address for the set-up link" in response.content.decode()
    assert TOTPDevice.objects.filter(user=agent, confirmed=True).exists()
    assert not StaffEnrolmentLink.objects.filter(user=agent).exists()


def test_staff_second_step_reset_is_for_superusers_only():
    for role in ("operators", "support"):
        client = staff_client(staff_member(role))
        agent = staff_member("support")
        response = client.post("/admin/accounts/user/", {"action": "second_step_reset", "_selected_action": [agent.pk]})
        assert response.status_code == 403
        assert TOTPDevice.objects.filter(user=agent, confirmed=True).exists()


def test_staff_create_link_is_audited():
    out = io.StringIO()
    call_command("staff_create", "--role", "support", "agent9", "--email", "agent9@example.com", stdout=out)
    user = User.objects.get(username="agent9")
    (made,) = trail("staff.second_step.link_made", user)
    assert made.actor == "system" and made.actor_id is None and made.reason == "staff member created"
    assert made.after["link_valid_until"]
    assert StaffEnrolmentLink.objects.filter(user=user, used_at__isnull=True).count() == 1


def test_staff_second_step_reset_command_prints_a_link():
    agent = staff_member("support")
    out = io.StringIO()
    call_command("staff_second_step_reset", agent.username, stdout=out)
    assert not TOTPDevice.objects.filter(user=agent).exists()
    link = out.getvalue().split("valid 24 h): ")[1].split()[0].removeprefix("http://admin.localhost")
    assert enrol(admin_client(), link, agent).status_code == 302
    assert [row.actor for row in trail("staff.second_step.link_made", agent)] == ["system"]
    with pytest.raises(CommandError, match="No active staff member"):
        call_command("staff_second_step_reset", "nobody-here", stdout=io.StringIO())
