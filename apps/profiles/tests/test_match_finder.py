"""The match finder (issue 4 item 5): /match-finder, a guided search prefilled from the
member's profile, whose results come from GET /api/search.php."""

import pytest

from apps.profiles.tests.test_search import island_props, make_profile, member_client, names
from conftest import on_site

pytestmark = pytest.mark.django_db


def test_visitors_go_to_the_login_page(site, client_for):
    response = client_for(site).get("/match-finder")
    assert response.status_code == 302
    assert response["Location"] == "/login?next=%2Fmatch-finder"


def test_prefilled_from_a_hetero_womans_profile(site, client_for):
    client, _ = member_client(site, client_for, gender="female", sexuality="hetero", country="US")
    props = island_props(client.get("/match-finder").content.decode(), "MatchFinder")
    assert props["filters"] == {"gender": "male", "country": "US", "region": "", "min_age": 18, "max_age": 99}
    assert props["defaults"] == props["filters"]
    assert props["apiUrl"] == "/api/search.php"
    assert [option["value"] for option in props["options"]["genders"]] == ["all", "male", "female"]
    assert props["options"]["regions"]["US"]
    assert [field["name"] for field in props["options"]["fields"]] == [*site.search_fields, "verified"]
    assert props["strings"]["genderTitle"] == "Who are you looking for?"
    assert props["strings"]["loadMore"] == "Load more"


def test_the_gay_site_offers_men_only(gay_site, client_for):
    client, _ = member_client(gay_site, client_for, gender="male", sexuality="gay", country="DE")
    props = island_props(client.get("/match-finder").content.decode(), "MatchFinder")
    assert props["filters"]["gender"] == "male"
    assert props["filters"]["country"] == "DE"
    assert [option["value"] for option in props["options"]["genders"]] == ["male"]


def test_its_choices_find_the_matches(site, client_for):
    """The island sends the steps' choices to the search API, as the search page does."""
    client, _ = member_client(site, client_for, gender="male", sexuality="hetero")
    with on_site(site):
        make_profile(name="fits", age=31, region="GB-WLS", relationship_status="single")
        make_profile(name="married", age=31, region="GB-WLS", relationship_status="married")
        make_profile(name="young", age=22, region="GB-WLS", relationship_status="single")
    body = client.get(
        "/api/search.php",
        {"gender": "female", "min_age": 25, "max_age": 40, "country": "GB", "region": "GB-WLS",
         "relationship_status": "single"},
    ).json()  # fmt: skip
    assert names(body) == ["fits"]
