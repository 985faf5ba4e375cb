"""The revenue dashboard on the operators' host: numbers from the rollups, filters in
the address, CSV, roles and bad filter values; the network and postback admin."""

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.conversions.models import DailyRollup, Event, Network, Postback, PostbackRule
from apps.conversions.rollups import rollup_add, rollups_rebuild
from apps.tenants.models import Site
from tests.staff import staff_client, staff_member

pytestmark = pytest.mark.django_db
TODAY = timezone.localdate()


@pytest.fixture
def numbers(site, gay_site):
    """Two sites' rollups: adnet on both, othernet on one, a purchase in EUR and one in GBP."""
    rollup_add(site_id=site.pk, tracking={"network": "adnet", "ref": "r1", "sub1": "s1"}, visits=10, signups=4)
    rollup_add(site_id=site.pk, tracking={"network": "adnet", "ref": "r1"}, confirmations=3)
    rollup_add(
        site_id=site.pk, tracking={"network": "adnet", "ref": "r1"}, currency="EUR", first_purchases=1, revenue=2995
    )
    rollup_add(site_id=gay_site.pk, tracking={"network": "othernet"}, day=TODAY - timedelta(days=3), signups=2)
    rollup_add(
        site_id=gay_site.pk,
        tracking={"network": "=cmd|' /C calc'!A0"},
        day=TODAY - timedelta(days=3),
        currency="GBP",
        first_purchases=1,
        revenue=1295,
    )
    # Outside the default 30 days.
    rollup_add(site_id=site.pk, tracking={"network": "adnet"}, day=TODAY - timedelta(days=60), signups=100)


def operator_client():
    return staff_client(staff_member("operators"))


class TestDashboard:
    def test_totals_breakdown_and_series_of_all_sites(self, numbers):
        response = operator_client().get("/admin/reports/")
        assert response.status_code == 200
        context = response.context
        assert context["total"]["counts"]["signups"] == 6
        assert context["currencies"] == ["EUR", "GBP"]
        assert context["total"]["revenue"] == ["29.95", "12.95"]
        labels = [line["label"] for line in context["groups"]]
        assert labels[0] == "adnet" and "othernet" in labels
        adnet = context["groups"][0]
        assert adnet["visit_rate"] == "40.0 %" and adnet["buy_rate"] == "25.0 %"
        assert adnet["per_signup"][0] == "7.49"  # 29.95 / 4
        assert [line["label"] for line in context["series"]] == [
            (TODAY - timedelta(days=3)).isoformat(),
            TODAY.isoformat(),
        ]
        html = response.content.decode()
        assert 'data-testid="reports-chart-signups"' in html and "<rect" in html
        assert "style=" not in html.split('id="content-main"')[1] and "<script>" not in html
        # The days shown are in the form, though the address left them out.
        assert context["form"]["start"].value() == (TODAY - timedelta(days=29)).isoformat()
        assert context["form"]["end"].value() == TODAY.isoformat()

    def test_the_form_shows_the_period_and_breakdown_used_when_left_out(self, numbers):
        html = operator_client().get("/admin/reports/").content.decode()
        by = html.split('name="by"')[1].split("</select>")[0]
        period = html.split('name="period"')[1].split("</select>")[0]
        assert '<option value="network" selected>' in by and by.count("selected") == 1
        assert '<option value="day" selected>' in period and period.count("selected") == 1

    def test_the_charts_show_their_scale_and_first_and_last_period(self, numbers):
        html = operator_client().get("/admin/reports/").content.decode()
        scale = html.split('class="reports-chart-scale"')[1].split("</div>")[0]
        assert "<span>4</span><span>0</span>" in scale  # 4 signups today, the highest bar
        axis = html.split('class="reports-chart-axis"')[1].split("</div>")[0]
        assert (TODAY - timedelta(days=3)).isoformat() in axis and TODAY.isoformat() in axis

    def test_one_site_by_site_per_month_in_a_range(self, site, numbers):
        first = (TODAY - timedelta(days=90)).isoformat()
        response = operator_client().get(
            "/admin/reports/", {"site": site.pk, "by": "site", "period": "month", "start": first}
        )
        assert response.status_code == 200
        groups = response.context["groups"]
        assert [line["label"] for line in groups] == [site.name]
        assert response.context["total"]["counts"]["signups"] == 104
        series_labels = [line["label"] for line in response.context["series"]]
        assert all(label.endswith("-01") for label in series_labels)

    def test_breakdown_by_ref_sub1_and_a_network_filter(self, numbers):
        client = operator_client()
        by_sub1 = client.get("/admin/reports/", {"by": "sub1", "net": "AdNet"}).context["groups"]
        assert {line["label"]: line["counts"]["signups"] for line in by_sub1} == {"s1": 4, "(none)": 0}
        by_ref = client.get("/admin/reports/", {"by": "ref"}).context["groups"]
        assert by_ref[0]["label"] == "r1"

    def test_csv_has_the_same_numbers_and_no_formulas(self, numbers):
        response = operator_client().get("/admin/reports/", {"export": "csv", "by": "network"})
        assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
        rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
        assert rows[0][1:3] == ["visits", "signups"]
        by_label = {row[0]: row for row in rows[1:]}
        assert by_label["adnet"][2] == "4" and by_label["Total"][2] == "6"
        assert "'=cmd|' /c calc'!a0" in by_label  # the network in lower case, never a formula

    @pytest.mark.parametrize(
        "query",
        [
            {"site": "abc"},
            {"site": "999999"},
            {"period": "year"},
            {"by": "email"},
            {"start": "2026-13-01"},
            {"start": "2020-01-01", "end": "2026-01-01"},
            {"start": "2026-05-01", "end": "2026-04-01"},
            {"net": "x" * 101},
        ],
    )
    def test_bad_filters_answer_400_with_a_message(self, query, numbers):
        client = operator_client()
        page = client.get("/admin/reports/", query)
        assert page.status_code == 400
        assert 'data-testid="reports-error"' in page.content.decode()
        exported = client.get("/admin/reports/", {**query, "export": "csv"})
        assert exported.status_code == 400
        body = exported.json()
        assert body["error"]["code"] == "invalid" and body["error"]["message"]

    def test_a_nul_byte_is_refused(self, numbers):
        assert operator_client().get("/admin/reports/", {"net": "a\x00b"}).status_code == 400

    def test_support_staff_get_403_and_strangers_the_login(self):
        assert staff_client(staff_member("support")).get("/admin/reports/").status_code == 403
        from django.test import Client

        response = Client(HTTP_HOST="admin.localhost").get("/admin/reports/")
        assert response.status_code == 302 and "/admin/login/" in response["Location"]


def _queries(client, query: dict) -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        response = client.get("/admin/reports/", query)
    assert response.status_code == 200
    return [entry["sql"] for entry in captured.captured_queries]


def _more_sites(count: int) -> list[int]:
    """Site rows only (no schemas), as the dashboard needs nothing else of a site."""
    from apps.tenants.models import Company, Site

    company = Company.objects.create(name="Rows B.V.", address="Rijstraat 1", city="Utrecht", country="NL")
    Site.objects.bulk_create(
        [Site(name=f"Rows {number:03d}", schema_name=f"rows_{number:03d}", company=company) for number in range(count)]
    )
    return list(Site.objects.filter(schema_name__startswith="rows_").values_list("pk", flat=True))


class TestDashboardQueries:
    """The page's queries are a fixed few, whatever the view and however many sites,
    sources and days: the rollups are read in one query (both the breakdown and the
    series), the sites (the filter's list, and the breakdown's names) in one."""

    VIEWS = [
        {"by": by, "period": period, "start": (TODAY - timedelta(days=364)).isoformat()}
        for by in ("site", "network", "ref", "sub1", "lander", "campaign")
        for period in ("day", "week", "month")
    ]

    def test_one_rollup_query_and_one_site_query_for_every_view(self, numbers, site):
        client = operator_client()
        client.get("/admin/")  # the session's first request writes to it; later ones do not
        counts = set()
        for query in [{}, {"site": site.pk, "net": "adnet"}, *self.VIEWS]:
            sql = _queries(client, query)
            assert sum("conversions_dailyrollup" in statement for statement in sql) == 1, query
            assert sum('FROM "tenants_site"' in statement for statement in sql) == 1, query
            counts.add(len(sql))
        # search_path, session, user, TOTP device, the operator's two permission
        # queries, the sites, the rollups.
        assert counts == {8}

    def test_the_count_does_not_grow_with_sites_sources_and_days(self, numbers):
        client = operator_client()
        query = {"by": "site", "period": "week", "start": (TODAY - timedelta(days=364)).isoformat()}
        before = len(_queries(client, query))
        for number, site_id in enumerate(_more_sites(120)):
            tracking = {"network": f"net{number % 7}", "ref": f"r{number}", "campaign": f"c{number % 3}"}
            day = TODAY - timedelta(days=number * 3)
            rollup_add(site_id=site_id, tracking=tracking, day=day, signups=1 + number)
            rollup_add(site_id=site_id, tracking=tracking, day=day, currency="EUR", first_purchases=1, revenue=995)
        after = _queries(client, query)
        assert len(after) == before
        assert sum("conversions_dailyrollup" in statement for statement in after) == 1


class TestBreakdownAndSeries:
    def test_a_long_breakdown_ends_in_one_row_of_all_the_others(self, numbers, monkeypatch):
        from apps.conversions import views

        site_ids = _more_sites(5)
        for number, site_id in enumerate(site_ids):
            rollup_add(site_id=site_id, tracking={"network": "adnet"}, signups=10 + number)
        monkeypatch.setattr(views, "GROUPS_SHOWN", 3)
        response = operator_client().get("/admin/reports/", {"by": "site"})
        groups = response.context["groups"]
        assert [line["counts"]["signups"] for line in groups] == [14, 13, 12]
        html = response.content.decode()
        others = html.split('data-testid="reports-others"')[1].split("</tr>")[0]
        # The two demo sites (4 and 2 signups) and the rows sites with 11 and 10.
        assert "All others (4)" in others and '<td class="num">27</td>' in others
        assert response.context["groups_cut"] == 4
        total = response.context["total"]["counts"]["signups"]
        assert total == sum(line["counts"]["signups"] for line in groups) + 27

    def test_weeks_start_on_monday_and_add_up_to_the_total(self, numbers):
        from datetime import date

        response = operator_client().get(
            "/admin/reports/", {"by": "network", "period": "week", "start": (TODAY - timedelta(days=89)).isoformat()}
        )
        series = response.context["series"]
        assert all(date.fromisoformat(line["label"]).weekday() == 0 for line in series)
        assert sum(line["counts"]["signups"] for line in series) == response.context["total"]["counts"]["signups"]
        assert response.context["total"]["counts"]["signups"] == 106

    def test_the_site_filter_renders_every_site_once_and_marks_the_chosen(self, numbers, site):
        html = operator_client().get("/admin/reports/", {"site": site.pk}).content.decode()
        select = html.split('name="site"')[1].split("</select>")[0]
        assert select.count("<option") == Site.objects.exclude(schema_name="public").count() + 1
        assert f'<option value="{site.pk}" selected>' in select
        assert select.count(" selected") == 1


class TestRebuild:
    def test_the_rebuild_recounts_from_the_sites_rows_and_keeps_visits(self, site, client_for):
        client = client_for(site)
        assert client.get("/?network=adnet&ref=r9").status_code == 302
        response = client.post(
            "/api/signup.php",
            {"email": "b@example.com", "name": "Bea", "date_of_birth": "1990-04-05", "password": "a-Long-pass-42x"},
            content_type="application/json",
        )
        assert response.status_code == 201
        row = DailyRollup.objects.get(site=site, network="adnet", ref="r9")
        assert (row.visits, row.signups) == (1, 1)
        DailyRollup.objects.filter(pk=row.pk).update(signups=50)
        assert rollups_rebuild(site=site, first=TODAY - timedelta(days=1), last=TODAY) >= 1
        row.refresh_from_db()
        assert (row.visits, row.signups, row.confirmations) == (1, 1, 0)

    def test_the_command_runs_for_every_site(self, site, gay_site):
        from django.core.management import call_command

        rollup_add(site_id=site.pk, tracking={"network": "ghost"}, signups=3)
        call_command("conversions_rollup_rebuild", "--days", "2")
        assert DailyRollup.objects.get(site=site, network="ghost").signups == 0


class TestNetworkAdmin:
    def test_an_operator_adds_a_network_and_a_bad_template_is_refused(self, site):
        client = operator_client()
        form = {
            "name": "AdNet",
            "active": "on",
            "currency": "EUR",
            "rules-TOTAL_FORMS": "1",
            "rules-INITIAL_FORMS": "0",
            "rules-MIN_NUM_FORMS": "0",
            "rules-MAX_NUM_FORMS": "1000",
            "rules-0-event": "signup",
            "rules-0-url": "https://partner.example/pb?c={clickid}",
            "rules-0-payout_fixed": "250",
            "rules-0-payout_share": "0",
        }
        refused = client.post("/admin/conversions/network/add/", form)
        assert refused.status_code == 200 and "Unknown macros: {clickid}" in refused.content.decode()
        assert not Network.objects.exists()
        form["rules-0-url"] = "https://partner.example/pb?c={ref}&p={payout}"
        saved = client.post("/admin/conversions/network/add/", form)
        assert saved.status_code == 302
        network = Network.objects.get()
        assert network.name == "adnet" and network.rules.get().event == Event.SIGNUP

    def test_the_sites_to_choose_leave_out_the_operators_host_and_deals_read_by_event(self, site):
        network = Network.objects.create(name="adnet")
        rule = PostbackRule.objects.create(network=network, event="first_purchase", url="https://partner.example/pb")
        assert str(rule) == "First purchase"
        html = operator_client().get(f"/admin/conversions/network/{network.pk}/change/").content.decode()
        sites = html.split('name="sites"')[1].split("</select>")[0]
        assert site.name in sites
        assert Site.objects.get(schema_name="public").name not in sites

    def test_resend_and_the_roles(self, site):
        network = Network.objects.create(name="adnet")
        PostbackRule.objects.create(network=network, event="signup", url="https://partner.example/pb")
        postback = Postback.objects.create(
            network=network,
            site=site,
            event="signup",
            key="signup:1",
            member_id=1,
            url="https://x.example/",
            state="failed",
        )
        client = operator_client()
        assert client.get("/admin/conversions/postback/").status_code == 200
        response = client.post(
            "/admin/conversions/postback/", {"action": "resend", "_selected_action": [postback.pk]}, follow=True
        )
        assert response.status_code == 200
        postback.refresh_from_db()
        assert postback.state == "pending"
        support = staff_client(staff_member("support"))
        assert support.get("/admin/conversions/postback/").status_code == 403
        assert support.get("/admin/conversions/network/").status_code == 403


class TestVisitsFromThePageCache:
    """The page cache's hits (apps.common.tests.test_page_cache) count in Redis; the fold
    puts them in the rollups once, keeps what came in meanwhile, and survives odd fields."""

    def test_counted_visits_are_folded_once_into_the_rollups(self, site):
        import asyncio

        from apps.conversions import visits

        def count(tracking: dict) -> None:
            asyncio.run(visits.visit_count(site.pk, tracking))

        def visits_now() -> dict:
            rows = DailyRollup.objects.filter(site_id=site.pk, day=TODAY)
            return {(row.network, row.sub1, row.ref): row.visits for row in rows}

        before = visits_now()  # rows other tests' servers committed

        def added() -> dict:
            now = visits_now()
            return {key: now[key] - before.get(key, 0) for key in now if now[key] != before.get(key, 0)}

        for tracking in ({"network": "AdNet", "sub1": "s"}, {"network": "adnet", "sub1": "s"}, {"ref": "r"}):
            count(tracking)
        client = visits._client()
        day_key = visits._day_key(site.pk, TODAY)
        client.hset(day_key, "not json", 4)  # a field no fold can read: the empty source
        assert visits.visits_fold() == 7
        assert added() == {
            ("adnet", "s", ""): 2,
            ("", "", "r"): 1,
            ("", "", ""): 4,
        }
        count({"network": "adnet", "sub1": "s"})
        assert visits.visits_fold() == 1
        assert added()[("adnet", "s", "")] == 3
        assert visits.visits_fold() == 0
        # The counts keep an expiry, so a site's days do not pile up if beat stops.
        assert 0 < client.ttl(day_key) <= visits.KEEP_SECONDS
