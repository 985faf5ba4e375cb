from apps.common.presence import page_hidden_since
from conftest import on_site


def test_page_hidden_beacon_marks_a_member_away_without_csrf(site, client_for, django_user_model):
    client = client_for(site, enforce_csrf_checks=True)
    with on_site(site):
        member = django_user_model.objects.create_user("away", "away@example.com", "pw-123456789")
        client.force_login(member)
    response = client.post("/api/page-hidden.php", "{}", content_type="application/json")
    assert response.status_code == 204
    with on_site(site):
        assert page_hidden_since(user_id=member.pk) is not None


def test_page_hidden_beacon_for_visitors_does_nothing(site, client_for):
    assert client_for(site).post("/api/page-hidden.php", "{}", content_type="application/json").status_code == 204
    assert client_for(site).get("/api/page-hidden.php").status_code == 405


def test_oversized_request_bodies_are_refused_before_reading(site, client_for, settings):
    settings.MAX_REQUEST_BYTES = 1000
    response = client_for(site).post("/api/signup.php", "x" * 2000, content_type="application/json")
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"
