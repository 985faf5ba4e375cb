"""Postbacks and rollups through the real services: signup, confirmation, purchases and
visits on the demo site, sent to a local fake partner (tests/fake_partner.py)."""

import re
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core import mail
from django.test import override_settings
from django.utils import timezone

from apps.conversions.macros import render, template_errors
from apps.conversions.models import DailyRollup, Event, Network, Postback, PostbackRule
from apps.conversions.postbacks import member_hash, postback_record, postback_send
from apps.conversions.tasks import postbacks_sweep
from apps.payments.tests.helpers_core import buy, buyer
from conftest import on_site
from tests.fake_partner import FakePartner

pytestmark = pytest.mark.django_db
PASSWORD = "a-Long-passphrase-42"
TEMPLATE = "/pb?click={ref}&s1={sub1}&ev={event}&amt={amount}&cur={currency}&pay={payout}&m={member}&site={site}"


@pytest.fixture
def partner():
    with FakePartner() as fake, override_settings(POSTBACK_URL_CHECK=False):
        yield fake


def network_with(partner, *events, share=0, fixed=250, path=TEMPLATE) -> Network:
    network = Network.objects.create(name="AdNet")
    for event in events:
        PostbackRule.objects.create(
            network=network, event=event, url=partner.url(path), payout_fixed=fixed, payout_share=share
        )
    return network


def signup(client, *, email="anna@example.com", name="Anna", **tracking):
    if tracking:
        query = "&".join(f"{key}={value}" for key, value in tracking.items())
        assert client.get(f"/?{query}").status_code == 302
    response = client.post(
        "/api/signup.php",
        {"email": email, "name": name, "date_of_birth": "1990-04-05", "password": PASSWORD},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    return response


def rollup_totals(site, **filters) -> dict:
    rows = DailyRollup.objects.filter(site=site, **filters)
    names = ("visits", "signups", "confirmations", "first_purchases", "purchases", "revenue", "refunds", "refunded")
    return {name: sum(getattr(row, name) for row in rows) for name in names}


class TestTemplates:
    def test_known_macros_on_https_are_accepted(self):
        assert template_errors("https://partner.example/pb?c={ref}&p={payout}&m={member}&e={event}") == []

    @pytest.mark.parametrize(
        ("template", "text"),
        [
            ("https://partner.example/pb?c={click_id}", "Unknown macros: {click_id}"),
            ("https://partner.example/pb?c={email}", "Unknown macros: {email}"),
            ("http://partner.example/pb?c={ref}", "Only https addresses"),
            ("https://partner.example:8443/pb", "Only https addresses"),
            ("https://10.0.0.1/pb?c={ref}", "Only https addresses"),
            ("https://127.0.0.1/pb", "Only https addresses"),
            ("https://{ref}.example/pb", "may only fill the path or the query"),
            ("https://partner.example/pb?c={ref", "A brace that opens no macro"),
            ("javascript:alert(1)", "Only https addresses"),
        ],
    )
    def test_bad_templates_say_why(self, template, text):
        assert any(text in error for error in template_errors(template))

    def test_the_admin_form_refuses_a_bad_template(self):
        network = Network.objects.create(name="x")
        rule = PostbackRule(network=network, event=Event.SIGNUP, url="http://partner.example/?c={nope}")
        with pytest.raises(Exception) as raised:
            rule.full_clean()
        assert "url" in raised.value.message_dict

    def test_values_are_encoded_and_cannot_change_the_address(self):
        url = render("https://p.example/pb?c={ref}&s={sub1}", {"ref": "a&evil=1#x", "sub1": "../../?q=/"})
        parts = urlsplit(url)
        assert parts.netloc == "p.example" and parts.path == "/pb" and parts.fragment == ""
        assert parse_qs(parts.query) == {"c": ["a&evil=1#x"], "s": ["../../?q=/"]}


class TestEvents:
    def test_a_signup_counts_and_tells_its_network_once(
        self, site, client_for, partner, django_capture_on_commit_callbacks
    ):
        network_with(partner, Event.SIGNUP)
        client = client_for(site)
        with django_capture_on_commit_callbacks(execute=True):
            signup(client, network="adnet", ref="click%26one", sub1="banner")
        [hit] = partner.hits
        with on_site(site):
            from apps.accounts.models import User

            member = User.objects.get(email="anna@example.com")
        assert hit.query["click"] == ["click&one"] and hit.query["s1"] == ["banner"]
        assert hit.query["ev"] == ["signup"] and hit.query["pay"] == ["2.50"] and hit.query["cur"] == ["EUR"]
        assert hit.query["site"] == [site.schema_name]
        network = Network.objects.get()
        assert hit.query["m"] == [member_hash(network_id=network.pk, site_id=site.pk, member_id=member.pk)]
        assert re.fullmatch(r"[0-9a-f]{32}", hit.query["m"][0]) and "anna" not in hit.raw.lower()
        [postback] = Postback.objects.all()
        assert (postback.state, postback.attempts, postback.event) == ("sent", 1, "signup")
        [attempt] = postback.tries.all()
        assert (attempt.status, attempt.answer) == (200, "OK")
        totals = rollup_totals(site, network="adnet", ref="click&one", sub1="banner")
        assert totals["visits"] == 1 and totals["signups"] == 1
        # The same event again records nothing and sends nothing.
        with django_capture_on_commit_callbacks(execute=True):
            tracking = {"network": "adnet", "ref": "x"}
            assert (
                postback_record(
                    site=site, tracking=tracking, member_id=member.pk, event="signup", key=f"signup:{member.pk}"
                )
                is None
            )
        assert Postback.objects.count() == 1 and len(partner.hits) == 1

    def test_a_member_without_a_known_network_counts_but_tells_nobody(
        self, site, client_for, partner, django_capture_on_commit_callbacks
    ):
        network_with(partner, Event.SIGNUP)
        with django_capture_on_commit_callbacks(execute=True):
            signup(client_for(site), network="othernet")
        assert partner.hits == [] and Postback.objects.count() == 0
        assert rollup_totals(site, network="othernet")["signups"] == 1

    def test_a_network_limited_to_other_sites_is_not_told(
        self, site, gay_site, client_for, partner, django_capture_on_commit_callbacks
    ):
        network_with(partner, Event.SIGNUP).sites.set([gay_site])
        with django_capture_on_commit_callbacks(execute=True):
            signup(client_for(site), network="adnet")
        assert partner.hits == []

    def test_confirmation(self, site, client_for, partner, django_capture_on_commit_callbacks):
        network_with(partner, Event.EMAIL_CONFIRMED)
        client = client_for(site)
        with django_capture_on_commit_callbacks(execute=True):
            signup(client, network="adnet")
        link = re.search(r"https?://\S+/activate\?key=\S+", mail.outbox[0].body).group(0)
        with django_capture_on_commit_callbacks(execute=True):
            assert client.get(link[link.index("/activate") :]).status_code == 302
        [hit] = partner.hits
        assert hit.query["ev"] == ["email_confirmed"]
        assert rollup_totals(site, network="adnet")["confirmations"] == 1

    def test_first_and_later_purchases_with_a_share_of_the_amount(
        self, site, partner, django_capture_on_commit_callbacks
    ):
        network_with(partner, Event.FIRST_PURCHASE, Event.PURCHASE, share=30)
        user = buyer(site)
        with on_site(site):
            from apps.accounts.models import SignupTracking

            SignupTracking.objects.create(user=user, network="AdNet", ref="r1")
        with django_capture_on_commit_callbacks(execute=True):
            first = buy(site, user, credits=50)
        with django_capture_on_commit_callbacks(execute=True):
            buy(site, user, credits=20)
        assert [hit.query["ev"] for hit in partner.hits] == [["first_purchase"], ["purchase"]]
        assert partner.hits[0].query["amt"] == [f"{first.amount / 100:.2f}"]
        assert partner.hits[0].query["pay"] == [f"{(first.amount * 30 + 50) // 100 / 100:.2f}"]  # 30 %, half up
        assert partner.hits[0].query["cur"] == [first.currency]
        totals = rollup_totals(site, network="adnet", ref="r1")
        assert (totals["first_purchases"], totals["purchases"]) == (1, 1)
        assert totals["revenue"] == first.amount + Postback.objects.get(event="purchase").amount

    def test_a_visit_with_tracking_counts(self, site, client_for):
        client = client_for(site)
        assert client.get("/?network=adnet&sub1=a").status_code == 302
        assert client.get("/?network=adnet&sub1=a").status_code == 302
        assert rollup_totals(site, network="adnet", sub1="a")["visits"] == 2


class TestSending:
    def _postback(self, site, partner) -> Postback:
        network_with(partner, Event.SIGNUP)
        return postback_record(site=site, tracking={"network": "adnet"}, member_id=7, event="signup", key="signup:7")

    def test_no_answer_or_5xx_is_retried_with_backoff_and_every_answer_logged(self, site, partner):
        partner.answers = [(500, "busy", {}), (429, "slow down", {})]
        postback = self._postback(site, partner)
        postback_send(postback.pk)
        postback.refresh_from_db()
        assert (postback.state, postback.attempts) == ("pending", 1)
        assert timedelta(seconds=50) < postback.next_try - timezone.now() <= timedelta(seconds=60)
        # Not due yet: the sweep leaves it.
        assert postbacks_sweep() == 0
        Postback.objects.filter(pk=postback.pk).update(next_try=timezone.now())
        assert postbacks_sweep() == 1
        postback.refresh_from_db()
        assert (postback.state, postback.attempts) == ("pending", 2)
        assert postback.next_try - timezone.now() > timedelta(minutes=4)
        Postback.objects.filter(pk=postback.pk).update(next_try=timezone.now())
        postbacks_sweep()
        postback.refresh_from_db()
        assert (postback.state, postback.attempts) == ("sent", 3)
        assert [(a.status, a.answer) for a in postback.tries.all()] == [(500, "busy"), (429, "slow down"), (200, "OK")]

    def test_a_partner_that_is_gone_is_given_up_after_the_last_try(self, site, partner):
        postback = self._postback(site, partner)
        partner.server.shutdown()
        partner.server.server_close()
        for _ in range(6):
            Postback.objects.filter(pk=postback.pk).update(next_try=timezone.now())
            postbacks_sweep()
        postback.refresh_from_db()
        assert (postback.state, postback.attempts) == ("failed", 6)
        assert all(attempt.status == 0 and attempt.answer for attempt in postback.tries.all())

    def test_a_redirect_is_not_followed(self, site, partner):
        with FakePartner() as elsewhere:
            partner.answers = [(302, "", {"Location": elsewhere.url("/inside")})]
            postback = self._postback(site, partner)
            postback_send(postback.pk)
            assert elsewhere.hits == []
        postback.refresh_from_db()
        assert (postback.state, postback.tries.get().status) == ("failed", 302)

    @pytest.mark.parametrize(
        "url",
        [
            "https://localhost/pb?c=1",  # a name whose address is loopback
            "http://127.0.0.1:{port}/pb",  # not https, not 443
            "https://10.1.2.3/pb",  # a private address
            "https://2130706433/pb",  # 127.0.0.1 in an old form
        ],
    )
    def test_private_loopback_and_plain_http_targets_are_refused(self, site, partner, url):
        postback = self._postback(site, partner)
        Postback.objects.filter(pk=postback.pk).update(url=url.format(port=partner.port))
        with override_settings(POSTBACK_URL_CHECK=True):
            postback_send(postback.pk)
        postback.refresh_from_db()
        assert postback.state == "refused" and partner.hits == []
        assert postback.tries.get().status == 0
