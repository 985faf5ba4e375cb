from django.core.cache import caches

from conftest import on_site


def test_page_hidden_beacon_value_is_answered_and_not_kept(site, client_for, django_user_model):
    """Nothing reads a page-hidden mark (notices go by read state), so the beacon keeps none:
    it is answered without CSRF (sendBeacon cannot send the header) and leaves no key."""
    client = client_for(site, enforce_csrf_checks=True)
    with on_site(site):
        member = django_user_model.objects.create_user("away", "away@example.com", "pw-123456789")
        client.force_login(member)
    cache = caches["default"]
    before = set(cache._cache.get_client().keys("*"))
    response = client.post("/api/page-hidden.php", "{}", content_type="application/json")
    assert response.status_code == 204
    written = set(cache._cache.get_client().keys("*")) - before
    assert written == set()


def test_page_hidden_beacon_for_visitors_does_nothing(site, client_for):
    assert client_for(site).post("/api/page-hidden.php", "{}", content_type="application/json").status_code == 204
    assert client_for(site).get("/api/page-hidden.php").status_code == 405


def test_oversized_request_bodies_are_refused_before_reading(site, client_for, settings):
    settings.MAX_REQUEST_BYTES = 1000
    response = client_for(site).post("/api/signup.php", "x" * 2000, content_type="application/json")
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"
