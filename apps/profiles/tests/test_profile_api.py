"""/api/interests.php, /api/regions.php and /api/companyinfo.php (spec §7): public,
cacheable, a fixed number of queries."""

import pytest

from apps.tenants.regions import regions_for_country
from apps.tenants.selectors import company_info
from conftest import on_site

pytestmark = pytest.mark.django_db


def get(client, url):
    response = client.get(url)
    assert response.status_code == 200, response.content
    assert "public" in response["Cache-Control"] and "max-age=3600" in response["Cache-Control"]
    return response.json()


def test_interests_are_the_sites(two_sites, client_for, django_assert_num_queries):
    site, gay_site = two_sites
    with on_site(site):
        site.interests = ["Music", "Travel"]
        site.save(update_fields=["interests"])
    client = client_for(site)
    client.get("/api/interests.php")  # The site lookup is cached per process after the first request.
    with django_assert_num_queries(0):
        assert get(client, "/api/interests.php") == {"interests": ["Music", "Travel"]}
    assert get(client_for(gay_site), "/api/interests.php") == {"interests": list(gay_site.interests)}


def test_regions_of_the_sites_countries(site, client_for, django_assert_num_queries):
    client = client_for(site)
    client.get("/api/regions.php")
    with django_assert_num_queries(0):
        body = get(client, "/api/regions.php")
    assert list(body["regions"]) == site.country_codes
    assert body["regions"]["GB"] == list(regions_for_country("GB"))
    assert {"code": "GB-SCT", "name": "Scotland"} in body["regions"]["GB"]


def test_region_names_are_the_members_not_isos_labels(site, client_for):
    """ISO 3166-2 writes "Wales [Cymru GB-CYM]": members read "Wales" (the shared region
    lookup, apps.tenants.selectors, used by profiles, signup, search and the landers too)."""
    body = get(client_for(site), "/api/regions.php?country=GB")
    assert {"code": "GB-WLS", "name": "Wales"} in body["regions"]["GB"]
    assert not [region for region in body["regions"]["GB"] if "[" in region["name"]]


def test_regions_of_one_country(site, client_for):
    body = get(client_for(site), "/api/regions.php?country=fr")
    assert list(body["regions"]) == ["FR"]
    assert body["regions"]["FR"] == list(regions_for_country("FR"))


def test_regions_of_a_country_the_site_does_not_serve(site, client_for):
    response = client_for(site).get("/api/regions.php?country=NL")
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "Choose one of the countries of this site."


def test_company_info(two_sites, client_for, django_assert_num_queries):
    site, _gay_site = two_sites
    client = client_for(site)
    client.get("/api/companyinfo.php")
    with django_assert_num_queries(0):  # The company comes with the cached site.
        body = get(client, "/api/companyinfo.php")
    assert body == {"company": company_info(site.company)}
    assert body["company"]["name"]
    assert set(body["company"]) == {
        "name",
        "address",
        "kvk",
        "city",
        "country",
        "tradenames",
        "vat_numbers",
        "support_phone",
        "delete_discount",
        "added",
    }


def test_query_count_does_not_depend_on_the_data(site, client_for, django_assert_num_queries):
    with on_site(site):
        site.interests = [f"Interest {i}" for i in range(50)]
        site.save(update_fields=["interests"])
    client = client_for(site)
    client.get("/api/interests.php")
    with django_assert_num_queries(0):
        assert len(get(client, "/api/interests.php")["interests"]) == 50


def test_public_calls_ignore_the_session(site, client_for):
    from apps.profiles.tests.helpers import logged_in, member_create

    client = logged_in(site, client_for, member_create(site))
    assert get(client, "/api/interests.php") == get(client_for(site), "/api/interests.php")
