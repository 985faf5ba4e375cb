import pytest

pytestmark = pytest.mark.django_db

SETTINGS_KEYS = {
    "countries",
    "name",
    "domain",
    "domain_language",
    "index_title",
    "description",
    "cdn_prefix",
    "niche",
    "signups",
    "logged_out_search",
    "logged_out_search_trafficsource",
    "geoip_country",
    "geoip_selected_country",
    "push_public_key",
    "minimum_message_costs",
    "message_credits",
    "photo_credits",
    "gift_credits",
    "signup_credits",
    "message_length",
    "support_email",
    "support_phone",
    "fictional_icon",
    "fictional_warning",
    "fictional_singular",
    "fictional_plural",
    "enable_site_entry_popup",
    "visible_profile_fields",
    "visible_profile_notes",
    "search_fields",
    "refund_days",
    "member_resell",
    "company_id",
    "mail_name",
    "interests",
    "region_data",
}


def test_settings_api_returns_every_setting_of_the_spec(site, client_for):
    data = client_for(site).get("/api/settings.php").json()
    assert set(data) >= SETTINGS_KEYS
    assert data["name"] == "Heartline"
    assert data["niche"] == 1
    assert data["domain"] == "localhost"
    assert data["company"]["name"] == "Demo Dating B.V."


def test_settings_api_is_per_site(gay_site, client_for):
    data = client_for(gay_site).get("/api/settings.php").json()
    assert data["name"] == "Manline"
    assert data["niche"] == 7
    assert data["lander_prefix"] == "gay"


def test_settings_api_regions_are_real_subdivisions(site, client_for):
    data = client_for(site).get("/api/settings.php").json()
    french = {region["name"] for region in data["region_data"]["FR"]}
    assert "Bretagne" in french or "Brittany" in french
    assert set(data["region_data"]) == set(data["countries"])


def test_settings_api_geoip_country(site, client_for):
    data = client_for(site).get("/api/settings.php", HTTP_CF_IPCOUNTRY="fr").json()
    assert data["geoip_country"] == "FR"
    assert data["geoip_selected_country"] == "FR"
    data = client_for(site).get("/api/settings.php", HTTP_CF_IPCOUNTRY="JP").json()
    assert data["geoip_country"] == "JP"
    assert data["geoip_selected_country"] == site.country_codes[0]


def test_settings_api_echoes_only_a_domain_of_the_same_site(site, client_for):
    client = client_for(site)
    assert client.get("/api/settings.php", {"domain": "gay.localhost"}).json()["domain"] == "localhost"
    assert client.get("/api/settings.php", {"domain": "localhost:8000"}).json()["domain"] == "localhost"


def test_minimum_message_costs_per_country(site, client_for):
    site.minimum_message_costs.create(country="FR", costs=3, currency="EUR")
    data = client_for(site).get("/api/settings.php").json()
    assert data["minimum_message_costs"] == [{"country": "FR", "costs": 3, "currency": "EUR"}]


def test_settings_api_query_count_is_fixed(site, client_for, django_assert_max_num_queries):
    client = client_for(site)
    client.get("/api/settings.php")
    with django_assert_max_num_queries(1):
        client.get("/api/settings.php")


def test_the_operators_country_order_is_kept(site, client_for):
    site.countries = ["US", "GB", "BE"]
    site.save()
    site.refresh_from_db()
    assert site.country_codes == ["US", "GB", "BE"]
    assert client_for(site).get("/api/settings.php").json()["geoip_selected_country"] == "US"
