"""Notices for many members: operators' campaigns from the admin (with progress and
counts), reminders from beat bounded per member, and the marketing defaults by country."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from apps.accounts.models import User, UserStatus
from apps.chat.tests.helpers import credits_give, send
from apps.notifications.consent import default_notification_types
from apps.notifications.models import Notice, NoticeState
from apps.notifications.reminders import reminders_queue
from apps.notifications.tasks import reminders_daily, weekly_updates
from apps.notifications.tests.conftest import device
from apps.profiles.tests.helpers_view import member
from apps.tenants.models import Campaign, CampaignState
from conftest import on_site
from tests.staff import staff_client, staff_member

pytestmark = pytest.mark.django_db

OPERATOR_PASSWORD = "operator-Long-phrase-1"


def opted(site, name: str, *, email=("news",), push=("news",), **fields):
    profile = member(site, name)
    with on_site(site):
        User.objects.filter(pk=profile.user_id).update(
            email_notifications=list(email), push_notifications=list(push), **fields
        )
        profile.user.refresh_from_db()
    return profile


@pytest.fixture
def audience(site, local_push):
    """Who gets a "news" campaign: Ada (e-mail and a device), Bo (e-mail only: no
    device), and not Cy (opted out), Di (deleted), Ed (blocked), Fay (not confirmed),
    Gus (French, when the campaign is for English readers)."""
    ada = opted(site, "Ada")
    device(site, ada.user, local_push, "ada")
    bo = opted(site, "Bo")
    cy = opted(site, "Cy", email=(), push=())
    device(site, cy.user, local_push, "cy")
    di = opted(site, "Di", status=UserStatus.DELETED)
    ed = opted(site, "Ed", is_active=False)
    fay = opted(site, "Fay", status=UserStatus.NOT_CONFIRMED)
    gus = opted(site, "Gus", language="fr")
    return {"ada": ada, "bo": bo, "cy": cy, "di": di, "ed": ed, "fay": fay, "gus": gus}


@pytest.fixture
def admin():
    return staff_client(staff_member("operators", "operator"))


class TestCampaigns:
    def test_an_operator_sends_news_from_the_admin_and_sees_the_counts(
        self, site, audience, admin, local_push, django_capture_on_commit_callbacks
    ):
        mail.outbox.clear()
        response = admin.post(
            "/admin/tenants/campaign/add/",
            {
                "site": site.pk,
                "kind": "news",
                "language": "en",
                "title": "Summer party",
                "body": "Join us <b>tonight</b>",
                "button": "Show me",
                "url": "/members",
                "email": "on",
                "push": "on",
            },
        )
        assert response.status_code == 302, response.content.decode()[:2000]
        campaign = Campaign.objects.get(title="Summer party")
        assert campaign.state == CampaignState.DRAFT
        with django_capture_on_commit_callbacks(execute=True):
            response = admin.post(f"/admin/tenants/campaign/{campaign.pk}/send/")
        assert response.status_code == 302
        campaign.refresh_from_db()
        assert campaign.state == CampaignState.DONE
        # Ada by e-mail and push, Bo by e-mail; nobody else.
        assert (campaign.total, campaign.sent, campaign.failed, campaign.skipped) == (3, 3, 0, 0)
        assert sorted(message.to[0].split("-")[0] for message in mail.outbox) == ["ada", "bo"]
        (push,) = local_push.wait_for(1)
        assert push.token == "ada" and push.json["title"] == "Summer party" and push.json["url"] == "/members"
        assert "badge" not in push.json and push.topic == f"campaign-{campaign.pk}"
        html = mail.outbox[0].alternatives[0][0]
        assert "Join us &lt;b&gt;tonight&lt;/b&gt;" in html  # an operator's text is text
        page = admin.get("/admin/tenants/campaign/").content.decode()
        assert "3 / 3" in page
        # A sent campaign cannot be sent again.
        with django_capture_on_commit_callbacks(execute=True):
            admin.post(f"/admin/tenants/campaign/{campaign.pk}/send/")
        campaign.refresh_from_db()
        assert campaign.total == 3 and len(mail.outbox) == 2

    def test_skipped_and_failed_are_counted(self, site, audience, local_push, django_capture_on_commit_callbacks):
        from apps.notifications.campaigns import campaign_queue

        local_push.answer("ada", 403)
        with on_site(site):
            User.objects.filter(pk=audience["bo"].user_id).update(email_disabled_reason="")
        campaign = Campaign.objects.create(site=site, kind="news", title="T", body="B", language="en")
        # Bo switches off between the fan-out and the send: skipped, not sent.
        from apps.notifications import bulk

        original = bulk.notices_send_batch

        def switch_off_then_send(**kwargs):
            with on_site(site):
                User.objects.filter(pk=audience["bo"].user_id).update(email_notifications=[])
            return original(**kwargs)

        bulk.notices_send_batch, saved = switch_off_then_send, original
        try:
            with django_capture_on_commit_callbacks(execute=True):
                campaign_queue(campaign)
        finally:
            bulk.notices_send_batch = saved
        campaign.refresh_from_db()
        assert (campaign.total, campaign.sent, campaign.failed, campaign.skipped) == (3, 1, 1, 1)
        assert campaign.state == CampaignState.DONE

    def test_a_campaign_in_french_reaches_french_readers_only(self, site, audience, django_capture_on_commit_callbacks):
        from apps.notifications.campaigns import campaign_queue

        mail.outbox.clear()
        campaign = Campaign.objects.create(site=site, kind="news", title="Fête", body="Ce soir", language="fr")
        with django_capture_on_commit_callbacks(execute=True):
            campaign_queue(campaign)
        assert [message.to[0].split("-")[0] for message in mail.outbox] == ["gus"]

    def test_the_url_must_be_a_path_of_the_site(self, site, admin):
        for url in ("https://evil.example/", "//evil.example", "/a b"):
            response = admin.post(
                "/admin/tenants/campaign/add/",
                {"site": site.pk, "kind": "news", "title": "T", "body": "B", "url": url, "email": "on"},
            )
            assert (
                response.status_code == 200 and "Enter a path of the site starting with /." in response.content.decode()
            )


class TestReminders:
    def test_unread_messages_are_reminded_once_a_day(self, site, local_push):
        anna = member(site, "Anna")
        ben = opted(site, "Ben", email=("unread_message_reminders",), push=())
        credits_give(site, anna.user, 10)
        send(site, anna, ben, "hello?")
        with on_site(site):
            from apps.chat.models import Participant

            Participant.objects.filter(user=ben.user).update(last_message_at=timezone.now() - timedelta(hours=13))
            Notice.objects.all().delete()
            mail.outbox.clear()
            assert reminders_queue(kinds=("unread_message_reminders",)) == 1
            assert reminders_queue(kinds=("unread_message_reminders",)) == 0  # bounded per day
        (message,) = mail.outbox
        assert message.to == [ben.user.email] and "You have 1 unread message" in message.subject

    def test_nothing_for_fresh_messages_or_to_who_opted_out(self, site):
        anna = member(site, "Anna")
        ben = opted(site, "Ben", email=(), push=())
        carl = opted(site, "Carl", email=("unread_message_reminders",), push=())
        credits_give(site, anna.user, 10)
        send(site, anna, ben)
        send(site, anna, carl)  # too fresh
        with on_site(site):
            assert reminders_queue(kinds=("unread_message_reminders",)) == 0

    def test_come_back_reminders_go_to_members_away_for_a_week_once_a_week(self, site):
        away = opted(site, "Away", email=("reminders",), push=(), last_login=timezone.now() - timedelta(days=8))
        opted(site, "Here", email=("reminders",), push=(), last_login=timezone.now() - timedelta(days=1))
        opted(site, "Gone", email=("reminders",), push=(), last_login=timezone.now() - timedelta(days=90))
        mail.outbox.clear()
        with on_site(site):
            assert reminders_queue(kinds=("reminders",)) == 1
            Notice.objects.filter(kind="reminders").update(created=timezone.now() - timedelta(days=3))
            assert reminders_queue(kinds=("reminders",)) == 0
        (message,) = mail.outbox
        assert message.to == [away.user.email] and "We miss you" in message.subject

    def test_come_back_reminder_says_new_members_joined_only_when_true(self, site):
        from apps.profiles.models import Profile

        away = opted(site, "Away", email=("reminders",), push=(), last_login=timezone.now() - timedelta(days=8))
        with on_site(site):
            Profile.objects.update(created=timezone.now() - timedelta(days=30))
        mail.outbox.clear()
        with on_site(site):
            reminders_queue(kinds=("reminders",))
            notice = Notice.objects.get(user=away.user, kind="reminders")
        assert notice.state == NoticeState.SKIPPED and not mail.outbox  # nobody joined: nothing to say

        member(site, "Newcomer")
        with on_site(site):
            notice.delete()
            reminders_queue(kinds=("reminders",))
        (message,) = mail.outbox
        assert message.to == [away.user.email]
        assert "1 new member joined since your last visit." in message.body

    def test_the_beat_tasks_visit_every_site(self, two_sites):
        first, second = two_sites
        one = opted(first, "One", email=("weekly_updates",), push=())
        two = opted(second, "Two", email=("weekly_updates",), push=())
        member(first, "Newbie")  # something to tell: a new member this week
        mail.outbox.clear()
        assert weekly_updates() >= 2
        assert {message.to[0] for message in mail.outbox} >= {one.user.email, two.user.email}
        assert reminders_daily() >= 0

    def test_a_weekly_update_with_nothing_to_say_is_not_sent(self, site):
        lonely = opted(site, "Lonely", email=("weekly_updates",), push=())
        with on_site(site):
            from apps.profiles.models import Profile

            Profile.objects.update(created=timezone.now() - timedelta(days=30))
            from django.core.cache import cache

            cache.clear()
            reminders_queue(kinds=("weekly_updates",))
            notice = Notice.objects.get(user=lonely.user, kind="weekly_updates")
        assert notice.state == NoticeState.SKIPPED and notice.result == "seen"


class TestConsentDefaults:
    @pytest.mark.parametrize(("country", "marketing"), [("FR", False), ("DE", False), ("GB", False), ("US", True)])
    def test_marketing_is_opt_in_where_the_law_asks(self, country, marketing):
        types = default_notification_types(country)
        assert ("news" in types) is marketing and ("promotions" in types) is marketing
        assert "new_messages" in types and "like" in types

    def test_a_new_member_starts_with_the_defaults_of_their_country(self, site, client_for, settings):
        from apps.notifications.consent import consent_required

        client = client_for(site)
        response = client.post(
            "/api/signup.php",
            {
                "email": "new@example.com",
                "name": "Newcomer",
                "date_of_birth": "1990-04-05",
                "password": "Long-phrase-77",
            },
            content_type="application/json",
            **{settings.GEOIP_COUNTRY_HEADER: "FR"},
        )
        assert response.status_code in (200, 201), response.content
        with on_site(site):
            user = User.objects.get(email="new@example.com")
        assert consent_required(user.country.code)
        assert user.email_notifications == user.push_notifications == default_notification_types(user.country.code)
        assert "news" not in user.email_notifications and "new_messages" in user.email_notifications


class TestChunk:
    """A chunk of a fan-out costs the same statements however many notices it has: none
    is written, read or rendered one notice at a time."""

    def _campaign_chunk(self, site, fake_push, names: list[str]) -> tuple[list[str], dict, list]:
        """A news campaign by push to the members made so far and `names`."""
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from apps.notifications import bulk

        for index, name in enumerate(names):
            # Two languages and two time zones: each group is one override, not a query.
            profile = opted(
                site,
                name,
                email=(),
                language="de" if index % 2 else "en",
                time_zone="Europe/Berlin" if index % 3 else "America/New_York",
            )
            device(site, profile.user, fake_push, name.lower())
        campaign = Campaign.objects.create(site=site, kind="news", title="Party", body="Tonight", language="")
        with on_site(site):
            bulk.notices_insert(kind="news", channel="push", campaign_id=campaign.pk, per_days=1)
            ((first, last),) = bulk.pending_ranges(campaign_id=campaign.pk)
            with CaptureQueriesContext(connection) as queries:
                states = bulk.notices_send_batch(first_id=first, last_id=last, campaign=campaign)
            notices = list(Notice.objects.filter(campaign_id=campaign.pk).select_related("user").order_by("pk"))
        return [query["sql"] for query in queries.captured_queries], states, notices

    def test_a_chunk_of_pushes_is_four_statements_whatever_its_size(self, site, local_push):
        few, states, notices = self._campaign_chunk(site, local_push, ["Ann", "Bea"])
        assert states == {NoticeState.SENT: 2}
        local_push.wait_for(2)
        many, states, notices = self._campaign_chunk(site, local_push, ["Cid", "Dot", "Eva", "Flo", "Gil", "Hal"])
        assert states == {NoticeState.SENT: 8} and len(notices) == 8
        assert {notice.state for notice in notices} == {NoticeState.SENT}
        assert {notice.result for notice in notices} == {"devices: 1 delivered, 0 gone, 0 refused, 0 to retry"}
        # The claim, the notices with their members, their devices, and one UPDATE of the
        # sent ones: the same four for 2 notices and for 8.
        assert len(few) == len(many) == 4, "\n".join(many)
        assert "RETURNING" in many[0] and many[-1].startswith("UPDATE")
        pushes = [push for push in local_push.wait_for(10) if push.topic == f"campaign-{notices[0].campaign_id}"]
        # Each member's push carries the member's own notice.
        assert sorted((push.token, push.json["id"]) for push in pushes) == sorted(
            (notice.user.username.lower(), str(notice.pk)) for notice in notices
        )
        assert {push.json["title"] for push in pushes} == {"Party"}

    def test_a_chunk_of_pushes_builds_no_model_per_notice(self, site, local_push):
        """A campaign's push notices and their members are read as rows: no Notice or
        User model is built for them (each cost about as much as the rest of the notice's
        own work beside its encryption)."""
        from django.db.models.signals import post_init

        from apps.notifications import bulk

        for name in ["Ivy", "Jo", "Kim"]:
            device(site, opted(site, name, email=()).user, local_push, name.lower())
        campaign = Campaign.objects.create(site=site, kind="news", title="Party", body="Tonight", language="")
        built: list[str] = []

        def count(sender, **kwargs) -> None:
            built.append(sender.__name__)

        with on_site(site):
            bulk.notices_insert(kind="news", channel="push", campaign_id=campaign.pk, per_days=1)
            ((first, last),) = bulk.pending_ranges(campaign_id=campaign.pk)
            post_init.connect(count, sender=Notice, dispatch_uid="test-chunk-notice")
            post_init.connect(count, sender=User, dispatch_uid="test-chunk-user")
            try:
                states = bulk.notices_send_batch(first_id=first, last_id=last, campaign=campaign)
            finally:
                post_init.disconnect(sender=Notice, dispatch_uid="test-chunk-notice")
                post_init.disconnect(sender=User, dispatch_uid="test-chunk-user")
        assert states == {NoticeState.SENT: 3}
        assert built == []
        assert len(local_push.wait_for(3)) == 3

    def test_gone_retried_and_delivered_devices_in_one_chunk(self, site, local_push):
        """The rows keep the rules of a notice's push: a device gone (410) is removed, one
        that asks to wait (429) is tried again later, and only that device."""
        from apps.accounts.models import PushSubscription
        from apps.notifications import bulk

        names = ["Lea", "Max", "Ned"]
        for name in names:
            profile = opted(site, name, email=())
            device(site, profile.user, local_push, name.lower())
        local_push.answer("lea", 410)
        local_push.answer("max", 429, retry_after=120)
        campaign = Campaign.objects.create(site=site, kind="news", title="Party", body="Tonight", language="")
        with on_site(site):
            bulk.notices_insert(kind="news", channel="push", campaign_id=campaign.pk, per_days=1)
            ((first, last),) = bulk.pending_ranges(campaign_id=campaign.pk)
            before = timezone.now()
            states = bulk.notices_send_batch(first_id=first, last_id=last, campaign=campaign)
            notices = {
                notice.user.username: notice
                for notice in Notice.objects.filter(campaign_id=campaign.pk).select_related("user")
            }
            left = set(PushSubscription.objects.values_list("endpoint", flat=True))
            max_device = PushSubscription.objects.get(user__username=notices["Max"].user.username).pk
        assert states == {NoticeState.SKIPPED: 1, NoticeState.PENDING: 1, NoticeState.SENT: 1}
        assert notices["Lea"].state == NoticeState.SKIPPED and "1 gone" in notices["Lea"].result
        assert not any(endpoint.endswith("/lea") for endpoint in left)
        retried = notices["Max"]
        assert retried.state == NoticeState.PENDING and retried.attempts == 1
        assert retried.retry_subscriptions == [max_device]
        assert retried.due_at >= before + timedelta(seconds=120)
        assert notices["Ned"].state == NoticeState.SENT and notices["Ned"].sent_at is not None
        assert [push.token for push in local_push.wait_for(1)] == ["ned"]
