"""Deleting an account: reason, save-offers, confirmation; reactivation within 14 days;
the daily sweep that erases members deleted longer ago."""

import time
from datetime import timedelta
from urllib.parse import unquote

import pytest
from allauth.account.models import EmailAddress
from django.core import mail, signing
from django.utils import timezone

from apps.accounts.models import PushSubscription, SignupTracking, User, UserStatus
from apps.accounts.services.deletion import REACTIVATE, members_erase_expired
from apps.accounts.services.tokens import member_token_make
from apps.accounts.tasks import members_erase_expired as members_erase_expired_task
from apps.accounts.tests.helpers_settings import (
    PASSWORD,
    link_in,
    logged_in,
    member_create,
    photo_add,
    push_add,
)
from apps.payments.models import DiscountCode
from apps.profiles.models import Photo, Profile, ProfileStatus
from apps.tenants.models import MemberDirectoryEntry
from conftest import on_site

pytestmark = pytest.mark.django_db

LINK_INVALID = "Link expired or invalid, request a new email"


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


@pytest.fixture
def anna(site):
    return member_create(site)


@pytest.fixture
def client(site, client_for, anna):
    return logged_in(site, client_for, anna)


def reload(site, user) -> User:
    with on_site(site):
        return User.objects.get(pk=user.pk)


def choose(client, reason: str, remarks: str = ""):
    return client.post("/notifications/delete", {"action": "reason", "reason": reason, "remarks": remarks})


def delete(client, *, reason="not_looking", remarks="", password=PASSWORD):
    choose(client, reason, remarks)
    return client.post("/notifications/delete", {"action": "confirm", "password": password})


def reactivation_token(message) -> str:
    return unquote(link_in(message, "reactivate").split("token=", 1)[1])


class TestReasonStep:
    def test_visitors_are_sent_to_the_login(self, site, client_for):
        response = client_for(site).get("/notifications/delete")
        assert response.headers["Location"] == "/login?next=/notifications/delete"

    def test_lists_every_reason(self, client):
        body = client.get("/notifications/delete").content.decode()
        for reason in ("price", "found_someone", "not_looking", "site_problems", "no_members", "time", "other"):
            assert f'value="{reason}"' in body

    def test_a_reason_is_required(self, client):
        response = choose(client, "", "some words")
        body = response.content.decode()
        assert response.status_code == 400
        assert "Please choose why you want to delete your account." in body
        assert ">some words</textarea>" in body

    def test_other_needs_remarks_and_keeps_the_choice(self, client):
        response = choose(client, "other", "   ")
        body = response.content.decode()
        assert response.status_code == 400
        assert 'data-testid="error-delete-remarks"><div>Please tell us why you want to delete your account.' in body
        assert 'value="other" checked' in body

    def test_going_back_shows_the_earlier_answer(self, client):
        choose(client, "other", "Too far away")
        body = client.get("/notifications/delete").content.decode()
        assert 'value="other" checked' in body and ">Too far away</textarea>" in body


class TestOffers:
    def test_price_offers_the_companys_discount_for_the_next_purchase(self, client):
        response = choose(client, "price")
        assert response.headers["Location"] == "/notifications/delete?step=offers"
        body = client.get(response.headers["Location"]).content.decode()
        assert 'data-testid="offer-discount"' in body
        assert "Stay with us and get 50% discount. It applies to your next purchase." in body
        assert 'href="/notifications/delete?step=confirm"' in body

    def test_tryout_package_is_the_sites_smallest_package_and_never_for_premium(self, site, client, anna):
        from apps.payments.models import CreditPackage

        with on_site(site):
            smallest = CreditPackage.objects.filter(site=site, is_active=True).order_by("credits").first()
        body = client.get(choose(client, "no_members").headers["Location"]).content.decode()
        assert 'data-testid="offer-tryout"' in body
        assert f'href="/credits/{smallest.pk}"' in body  # straight to that package's checkout
        assert client.get(f"/credits/{smallest.pk}").status_code == 200

        with on_site(site):
            User.objects.filter(pk=anna.pk).update(paid_user=True)
        body = client.get(choose(client, "no_members").headers["Location"]).content.decode()
        assert 'data-testid="offer-tryout"' not in body

    def test_tryout_package_offer_is_not_made_on_a_site_that_sells_none(self, site, client):
        from apps.payments.models import CreditPackage

        CreditPackage.objects.filter(site=site).update(is_active=False)
        body = client.get(choose(client, "no_members").headers["Location"]).content.decode()
        assert 'data-testid="offer-tryout"' not in body and 'data-testid="offer-discount"' in body

    def test_no_discount_when_the_company_offers_none(self, site, client):
        site.company.delete_discount = 0
        site.company.save()
        body = client.get(choose(client, "other", "why not").headers["Location"]).content.decode()
        assert 'data-testid="offer-discount"' not in body
        assert 'data-testid="offer-privacy"' in body and 'data-testid="offer-change_email"' in body

    def test_found_someone_offers_privacy_mode_in_one_click(self, site, client, anna):
        body = client.get(choose(client, "found_someone").headers["Location"]).content.decode()
        assert 'data-testid="offer-privacy"' in body and 'href="/notifications#email"' in body
        response = client.post("/notifications/delete", {"action": "privacy"})
        assert response.headers["Location"] == "/notifications#invisible-message"
        anna = reload(site, anna)
        assert anna.invisible and anna.status == UserStatus.ACTIVE

    def test_accepting_the_discount_gives_a_code_for_this_member_only_on_the_credits_page(self, site, client, anna):
        choose(client, "price")
        response = client.post("/notifications/delete", {"action": "discount"})
        code = DiscountCode.objects.get(site=site, member_id=anna.pk)
        assert response.headers["Location"] == f"/credits?code={code.code}"
        assert code.value_percentage == 50 and code.status == "active"
        assert timedelta(days=13) < code.expires - timezone.now() <= timedelta(days=14)
        anna = reload(site, anna)
        assert anna.status == UserStatus.ACTIVE  # the account stays
        page = client.get(response.headers["Location"]).content.decode()
        assert code.code in page
        # Accepting again gives the same code; nobody else can use it.
        client.post("/notifications/delete", {"action": "discount"})
        assert DiscountCode.objects.filter(site=site, member_id=anna.pk).count() == 1

    def test_the_discount_cannot_be_accepted_when_the_company_offers_none(self, site, client, anna):
        site.company.delete_discount = 0
        site.company.save()
        choose(client, "price")
        response = client.post("/notifications/delete", {"action": "discount"})
        assert response.headers["Location"] == "/notifications/delete"
        assert not DiscountCode.objects.filter(site=site, member_id=anna.pk).exists()

    def test_the_offers_step_needs_a_reason_first(self, client):
        assert client.get("/notifications/delete?step=offers").headers["Location"] == "/notifications/delete"
        assert client.get("/notifications/delete?step=confirm").headers["Location"] == "/notifications/delete"


class TestDelete:
    def test_a_wrong_password_is_refused(self, site, client, anna):
        response = delete(client, password="wrong")
        body = response.content.decode()
        assert response.status_code == 400
        assert 'data-testid="error-confirm-password"><div>Please check your password.' in body
        assert reload(site, anna).status == UserStatus.ACTIVE

    def test_deletes_hides_the_profile_and_mails_the_reactivation_link(self, site, client, anna):
        response = delete(client, reason="other", remarks="Moving abroad")
        assert response.status_code == 302 and response.headers["Location"] == "/account-deleted"
        anna = reload(site, anna)
        assert anna.status == UserStatus.DELETED and anna.deleted_at is not None
        assert (anna.delete_reason, anna.delete_remarks) == ("other", "Moving abroad")
        with on_site(site):
            assert Profile.objects.get(user=anna).status == ProfileStatus.DISABLED
        assert MemberDirectoryEntry.objects.get(site=site, member_id=anna.pk).status == "deleted"
        (message,) = mail.outbox
        assert message.to == ["anna@example.com"] and "/reactivate?token=" in message.body
        assert "within 14 days" in message.body
        page = client.get("/account-deleted").content.decode()
        assert "Your account is deleted" in page and "within 14 days" in page

    def test_every_session_of_the_member_ends(self, site, client_for, client, anna):
        other_device = logged_in(site, client_for, anna)
        bob = member_create(site, email="bob@example.com", name="Bob")
        bobs = logged_in(site, client_for, bob)
        delete(client)
        assert client.get("/notifications").status_code == 302
        assert other_device.get("/notifications").status_code == 302
        assert bobs.get("/notifications").status_code == 200  # only Anna's sessions

    def test_a_deleted_member_cannot_log_in(self, site, client_for, client):
        delete(client)
        response = client_for(site).post(
            "/api/user.php", {"email": "anna@example.com", "password": PASSWORD}, content_type="application/json"
        )
        assert response.json()["error"]["code"] == "account_deleted"


class TestReactivation:
    def test_the_link_asks_for_one_click_then_restores_and_logs_in(self, site, client_for, client, anna):
        delete(client)
        token = reactivation_token(mail.outbox[0])
        visitor = client_for(site)
        page = visitor.get(f"/reactivate?token={token}")
        assert page.status_code == 200 and "Reactivate my account" in page.content.decode()
        assert reload(site, anna).status == UserStatus.DELETED  # a mailbox's link scanner changes nothing

        response = visitor.post("/reactivate", {"token": token})
        assert response.headers["Location"] == "/reactivate?welcome=1"
        assert "Welcome back, Anna!" in visitor.get(response.headers["Location"]).content.decode()
        anna = reload(site, anna)
        assert (anna.status, anna.deleted_at, anna.delete_reason) == (UserStatus.ACTIVE, None, "")
        with on_site(site):
            assert Profile.objects.get(user=anna).status == ProfileStatus.ACTIVE
        assert MemberDirectoryEntry.objects.get(site=site, member_id=anna.pk).status == "active"
        assert visitor.get("/notifications").status_code == 200

        again = client_for(site).post("/reactivate", {"token": token})
        assert again.status_code == 400 and LINK_INVALID in again.content.decode()

    def test_an_unconfirmed_member_comes_back_unconfirmed_with_a_hidden_profile(self, site, client_for):
        bea = member_create(site, email="bea@example.com", name="Bea", confirmed=False)
        delete(logged_in(site, client_for, bea))
        client_for(site).post("/reactivate", {"token": reactivation_token(mail.outbox[0])})
        bea = reload(site, bea)
        assert bea.status == UserStatus.NOT_CONFIRMED
        with on_site(site):
            assert Profile.objects.get(user=bea).status == ProfileStatus.DISABLED

    def test_works_within_14_days_and_not_after(self, site, client_for, client, anna, monkeypatch):
        delete(client)
        token = reactivation_token(mail.outbox[0])
        now = time.time()
        clock = type("Clock", (), {"time": staticmethod(lambda: now + timedelta(days=14, minutes=1).total_seconds())})
        monkeypatch.setattr(signing, "time", clock)
        response = client_for(site).get(f"/reactivate?token={token}")
        body = response.content.decode()
        assert response.status_code == 400 and LINK_INVALID in body
        assert 'href="/pages/service"' in body  # customer service can still help
        assert client_for(site).post("/reactivate", {"token": token}).status_code == 400
        monkeypatch.undo()
        assert client_for(site).get(f"/reactivate?token={token}").status_code == 200

    def test_the_deletion_time_counts_not_only_the_links_age(self, site, client_for, anna):
        deleted_at = timezone.now() - timedelta(days=15)
        with on_site(site):
            User.objects.filter(pk=anna.pk).update(status=UserStatus.DELETED, deleted_at=deleted_at)
            token = member_token_make(purpose=REACTIVATE, member_id=anna.pk, d=deleted_at.isoformat(), p=True)
        assert client_for(site).post("/reactivate", {"token": token}).status_code == 400
        assert reload(site, anna).status == UserStatus.DELETED

    def test_a_link_from_another_site_fails(self, two_sites, client_for):
        first, second = two_sites
        anna = member_create(first)
        delete(logged_in(first, client_for, anna))
        token = reactivation_token(mail.outbox[0])
        twin = member_create(second, pk=anna.pk)
        with on_site(second):
            User.objects.filter(pk=twin.pk).update(status=UserStatus.DELETED, deleted_at=reload(first, anna).deleted_at)
        assert client_for(second).post("/reactivate", {"token": token}).status_code == 400
        assert reload(second, twin).status == UserStatus.DELETED


class TestSweep:
    def deleted(self, site, user, *, days_ago: float):
        with on_site(site):
            User.objects.filter(pk=user.pk).update(
                status=UserStatus.DELETED, deleted_at=timezone.now() - timedelta(days=days_ago)
            )

    def test_erases_only_members_deleted_more_than_14_days_ago(self, two_sites):
        first, second = two_sites
        old = member_create(first, email="old@example.com", name="Old")
        recent = member_create(first, email="recent@example.com", name="Recent")
        active = member_create(first, email="active@example.com", name="Active")
        elsewhere = member_create(second, email="old@example.com", name="Old")
        kept_files, erased_files = [], []
        for site, user in ((first, old), (first, recent), (first, active), (second, elsewhere)):
            photo = photo_add(site, user, name=user.username.lower())
            push_add(site, user, n=2)
            files = [(photo.image.storage, photo.image.name), (photo.thumb.storage, photo.thumb.name)]
            (erased_files if user.username == "Old" else kept_files).extend(files)
        self.deleted(first, old, days_ago=15)
        self.deleted(first, recent, days_ago=13)
        self.deleted(second, elsewhere, days_ago=20)

        assert members_erase_expired() == 2

        with on_site(first):
            assert list(User.objects.order_by("username").values_list("username", flat=True)) == ["Active", "Recent"]
            assert not PushSubscription.objects.filter(user_id=old.pk).exists()
            assert not SignupTracking.objects.filter(user_id=old.pk).exists()
            assert not EmailAddress.objects.filter(user_id=old.pk).exists()
            assert not Profile.objects.filter(user_id=old.pk).exists()
            assert not Photo.objects.filter(profile__user_id=old.pk).exists()
            assert PushSubscription.objects.filter(user_id=recent.pk).count() == 2
        with on_site(second):
            assert not User.objects.exists()
        assert all(not storage.exists(name) for storage, name in erased_files)
        assert all(storage.exists(name) for storage, name in kept_files)
        directory = set(MemberDirectoryEntry.objects.filter(site__in=two_sites).values_list("site_id", "member_id"))
        assert directory == {(first.pk, recent.pk), (first.pk, active.pk)}

        assert members_erase_expired() == 0  # safe to re-run

    def test_the_clock_can_be_given(self, site, anna):
        self.deleted(site, anna, days_ago=10)
        assert members_erase_expired() == 0
        assert members_erase_expired(now=timezone.now() + timedelta(days=5)) == 1
        with on_site(site):
            assert not User.objects.filter(pk=anna.pk).exists()

    def test_the_daily_task_runs_the_sweep(self, site, anna):
        self.deleted(site, anna, days_ago=30)
        members_erase_expired_task.apply()
        with on_site(site):
            assert not User.objects.filter(pk=anna.pk).exists()
