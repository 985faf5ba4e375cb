"""Signup credits (issue 6 item 2): the site's `signup_credits` are granted once, when the
member confirms the e-mail address, by the activation link or by a confirmation link from
the settings (a changed address, the bounce check)."""

import re

import pytest
from django.core import mail
from django.db import transaction

from apps.accounts.models import User, UserStatus
from apps.accounts.services import signup as signup_services
from apps.accounts.tests.helpers_settings import PASSWORD, link_in, logged_in, member_create
from apps.credits.bonus import member_confirmed, signup_bonus_grant, signup_bonus_key
from apps.credits.models import CreditEntry, EntryKind
from conftest import on_site

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _on_commit_runs_at_once(monkeypatch):
    """The test's transaction never commits: send queued mails at once."""
    monkeypatch.setattr(transaction, "on_commit", lambda func, using=None, robust=False: func())


def bonus_of(site, user) -> tuple[int, list[tuple[str, int, str | None]]]:
    with on_site(site):
        credits = User.objects.get(pk=user.pk).credits
        entries = list(CreditEntry.objects.filter(user_id=user.pk).values_list("kind", "credits", "key"))
    return credits, entries


def sign_up(site, client_for, email: str = "anna@example.com", name: str = "Anna"):
    client = client_for(site)
    data = {"email": email, "name": name, "date_of_birth": "1990-04-05", "password": PASSWORD}
    response = client.post("/api/signup.php", data, content_type="application/json")
    assert response.status_code == 201, response.content
    with on_site(site):
        user = User.objects.get(email=email)
    link = re.search(r"https?://\S+(/activate\?key=\S+)", mail.outbox[-1].body).group(1)
    return client, user, link


def test_the_hook_is_registered_by_the_credits_app():
    assert member_confirmed in signup_services._member_confirmed_hooks


class TestActivationLink:
    def test_no_credits_before_confirming(self, site, client_for):
        _client, anna, _link = sign_up(site, client_for)
        assert site.signup_credits == 10
        assert bonus_of(site, anna) == (0, [])

    def test_confirming_grants_the_sites_signup_credits(self, site, client_for):
        client, anna, link = sign_up(site, client_for)
        assert client.get(link).headers["Location"] == "/activate/done"
        assert bonus_of(site, anna) == (10, [("signup_bonus", 10, f"signup_bonus:{anna.pk}")])
        assert client.get("/api/user.php").json()["user"]["credits"] == 10

    def test_opening_the_link_twice_grants_once(self, site, client_for):
        client, anna, link = sign_up(site, client_for)
        client.get(link)
        client.get(link)
        assert bonus_of(site, anna) == (10, [("signup_bonus", 10, f"signup_bonus:{anna.pk}")])

    def test_each_site_grants_its_own_amount(self, gay_site, client_for):
        gay_site.signup_credits = 3
        gay_site.save()
        client, bob, link = sign_up(gay_site, client_for, email="bob@example.com", name="Bob")
        client.get(link)
        assert bonus_of(gay_site, bob) == (3, [("signup_bonus", 3, f"signup_bonus:{bob.pk}")])

    def test_a_site_without_signup_credits_grants_nothing(self, site, client_for):
        site.signup_credits = 0
        site.save()
        client, anna, link = sign_up(site, client_for)
        client.get(link)
        with on_site(site):
            assert User.objects.get(pk=anna.pk).status == UserStatus.ACTIVE
        assert bonus_of(site, anna) == (0, [])

    def test_a_failed_activation_grants_nothing(self, site, client_for):
        client, anna, _link = sign_up(site, client_for)
        assert client.get("/activate?key=forged").headers["Location"] == "/activate/error"
        assert bonus_of(site, anna) == (0, [])


class TestSettingsLinks:
    def test_confirming_a_changed_address_grants_them(self, site, client_for):
        bea = member_create(site, email="typo@exmaple.com", name="Bea", confirmed=False)
        client = logged_in(site, client_for, bea)
        client.post("/notifications", {"action": "email", "password": PASSWORD, "new_email": "bea@example.com"})
        client.get(link_in(mail.outbox[-1], "mail-change/do"))
        assert bonus_of(site, bea) == (10, [("signup_bonus", 10, f"signup_bonus:{bea.pk}")])

    def test_the_bounce_check_link_grants_them_to_an_unconfirmed_member(self, site, client_for):
        bea = member_create(site, email="bea@example.com", name="Bea", confirmed=False)
        client = logged_in(site, client_for, bea)
        client.post("/notifications", {"action": "email_check"})
        client.get(link_in(mail.outbox[-1], "mail-check/do"))
        with on_site(site):
            assert User.objects.get(pk=bea.pk).status == UserStatus.ACTIVE
        assert bonus_of(site, bea) == (10, [("signup_bonus", 10, f"signup_bonus:{bea.pk}")])

    def test_a_confirmed_member_changing_the_address_gets_nothing(self, site, client_for):
        anna = member_create(site)
        client = logged_in(site, client_for, anna)
        client.post("/notifications", {"action": "email", "password": PASSWORD, "new_email": "anna2@example.com"})
        client.get(link_in(mail.outbox[-1], "mail-change/do"))
        with on_site(site):
            assert User.objects.get(pk=anna.pk).email == "anna2@example.com"
        assert bonus_of(site, anna) == (0, [])

    def test_confirmed_by_the_activation_link_then_a_changed_address_grants_once(self, site, client_for):
        client, anna, link = sign_up(site, client_for)
        client.get(link)
        with on_site(site):
            User.objects.filter(pk=anna.pk).update(status=UserStatus.NOT_CONFIRMED)  # as if unconfirmed again
        client.post("/notifications", {"action": "email", "password": PASSWORD, "new_email": "anna2@example.com"})
        client.get(link_in(mail.outbox[-1], "mail-change/do"))
        assert bonus_of(site, anna) == (10, [("signup_bonus", 10, f"signup_bonus:{anna.pk}")])


class TestGrant:
    def test_granted_once_per_member(self, site, in_site):
        anna = User.objects.create_user("Anna", "anna@example.com", PASSWORD)
        first = signup_bonus_grant(user=anna)
        assert (first.kind, first.credits, first.key) == (EntryKind.SIGNUP_BONUS, 10, signup_bonus_key(anna))
        assert signup_bonus_grant(user=anna) is None
        member_confirmed(anna)
        assert User.objects.get(pk=anna.pk).credits == 10

    def test_the_site_is_found_from_the_schema_alone(self, site):
        from django_tenants.utils import schema_context

        with schema_context(site.schema_name):
            anna = User.objects.create_user("Anna", "anna@example.com", PASSWORD)
            assert signup_bonus_grant(user=anna).credits == site.signup_credits
