import logging

import pytest
from django.urls import reverse

from apps.profiles.geocoding import RedactGeocodeQuery, region_code, reverse_geocode
from apps.profiles.models import Profile
from conftest import on_site

pytestmark = pytest.mark.django_db

URL = "/api/geocode.php"


def geocode(client, **params):
    return client.get(URL, params)


class TestGeocodeApi:
    def test_amsterdam_gives_the_country_province_and_town(self, site, client_for):
        response = geocode(client_for(site), lat="52.37", lon="4.89")
        assert response.status_code == 200, response.content
        assert response.json() == {"country": "NL", "region": "NL-NH", "city": "Amsterdam"}

    @pytest.mark.parametrize(
        ("lat", "lon", "expected"),
        [
            ("48.8566", "2.3522", {"country": "FR", "region": "FR-IDF", "city": "Paris"}),
            ("51.5072", "-0.1276", {"country": "GB", "region": "GB-ENG", "city": "London"}),
            ("52.52", "13.405", {"country": "DE", "region": "DE-BE"}),
            ("48.137", "11.575", {"country": "DE", "region": "DE-BY", "city": "Munich"}),
            ("50.85", "4.35", {"country": "BE", "region": "BE-BRU"}),
            ("45.5", "-73.57", {"country": "CA", "region": "CA-QC", "city": "Montreal"}),
        ],
    )
    def test_big_cities(self, site, client_for, lat, lon, expected):
        response = geocode(client_for(site), lat=lat, lon=lon)
        assert response.status_code == 200, response.content
        assert expected.items() <= response.json().items()

    def test_a_country_the_site_does_not_serve_is_still_answered(self, gay_site, client_for):
        # The gay demo site serves NL, DE and GB; the caller decides what to do with FR.
        response = geocode(client_for(gay_site), lat="48.8566", lon="2.3522")
        assert response.status_code == 200
        assert response.json()["country"] == "FR"

    def test_the_middle_of_the_ocean_has_no_town(self, site, client_for):
        response = geocode(client_for(site), lat="40.0", lon="-35.0")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "no_place"
        assert response.json()["error"]["message"] == "No town was found near this location."

    def test_the_sea_near_a_coast_gives_the_nearest_town(self, site, client_for):
        # The North Sea 20 km off Zandvoort.
        response = geocode(client_for(site), lat="52.40", lon="4.20")
        assert response.status_code == 200
        assert response.json()["country"] == "NL"

    @pytest.mark.parametrize(
        "params",
        [
            {},
            {"lat": "52.37"},
            {"lon": "4.89"},
            {"lat": "abc", "lon": "4.89"},
            {"lat": "91", "lon": "4.89"},
            {"lat": "52.37", "lon": "-180.5"},
            {"lat": "nan", "lon": "4.89"},
            {"lat": "inf", "lon": "4.89"},
            {"lat": "", "lon": ""},
        ],
    )
    def test_bad_coordinates_are_refused_with_a_clear_message(self, site, client_for, params):
        response = client_for(site).get(URL, params)
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "invalid_coordinates"
        assert "Latitude must be between -90 and 90" in error["message"]

    def test_the_message_is_translated(self, site, client_for):
        response = client_for(site, HTTP_ACCEPT_LANGUAGE="fr").get(URL, {"lat": "x", "lon": "y"})
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "invalid_coordinates"
        assert response.json()["error"]["message"]

    def test_visitors_are_rate_limited_per_address(self, site, client_for):
        client = client_for(site)
        statuses = [geocode(client, lat="52.37", lon="4.89").status_code for _ in range(31)]
        assert statuses == [200] * 30 + [429]
        assert geocode(client, lat="52.37", lon="4.89").json()["error"]["code"] == "rate_limited"
        other_address = client_for(site, REMOTE_ADDR="192.0.2.7")
        assert geocode(other_address, lat="52.37", lon="4.89").status_code == 200

    def test_nothing_is_stored_or_logged(self, site, client_for, caplog):
        with on_site(site):
            before = list(Profile.objects.values_list("pk", "city", "region", "country"))
        with caplog.at_level(logging.DEBUG):
            geocode(client_for(site), lat="52.3702", lon="4.8952")
            client_for(site).get(URL, {"lat": "95.1234", "lon": "4.8952"})
        with on_site(site):
            assert list(Profile.objects.values_list("pk", "city", "region", "country")) == before
        assert "52.3702" not in caplog.text and "4.8952" not in caplog.text and "95.1234" not in caplog.text

    def test_the_route_has_its_name(self):
        assert reverse("api-geocode") == URL


class TestGeocoding:
    def test_the_antimeridian_and_poles_do_not_break_it(self):
        fiji = reverse_geocode(lat=-16.8, lon=179.99)
        assert fiji is not None and fiji.country == "FJ"
        assert reverse_geocode(lat=90, lon=0) is None

    def test_out_of_range_is_an_error(self):
        with pytest.raises(ValueError):
            reverse_geocode(lat=100, lon=0)

    @pytest.mark.parametrize(
        ("country", "admin1", "code"),
        [
            ("NL", "North Holland", "NL-NH"),
            ("DE", "Baden-Wuerttemberg", "DE-BW"),
            ("DE", "Bavaria", "DE-BY"),
            ("GB", "Wales", "GB-WLS"),
            ("ES", "Catalonia", "ES-CT"),
            ("FR", "Ile-de-France", "FR-IDF"),
            ("US", "New York", "US-NY"),
            ("NL", "Atlantis", ""),
            ("NL", "", ""),
        ],
    )
    def test_geonames_region_names_map_to_iso_codes(self, country, admin1, code):
        assert region_code(country, admin1) == code


def test_the_access_log_keeps_the_path_without_the_coordinates():
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/api/geocode.php?lat=52.37&lon=4.89", "1.1", 200), None,
    )  # fmt: skip
    assert RedactGeocodeQuery().filter(record)
    assert record.getMessage() == '127.0.0.1:5000 - "GET /api/geocode.php HTTP/1.1" 200'
