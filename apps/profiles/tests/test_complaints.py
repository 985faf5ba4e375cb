"""/complaints (spec §2): a form for members and visitors, stored for support."""

import pytest

from apps.profiles.models import Block, Complaint, ComplaintReason, ProfileStatus
from apps.profiles.tests.helpers_view import logged_in, member
from conftest import on_site

pytestmark = pytest.mark.django_db

DONE = "Thank you. We have received your complaint and will look into it."


def _complaints(site) -> list[Complaint]:
    with on_site(site):
        return list(Complaint.objects.order_by("pk"))


def test_a_visitor_files_a_general_complaint(site, client_for):
    client = client_for(site)
    page = client.get("/complaints").content.decode()
    assert 'data-testid="complaint-form"' in page and "csrfmiddlewaretoken" in page
    assert "complaint-about" not in page
    response = client.post(
        "/complaints", {"reason": ComplaintReason.SCAM, "text": "  Asked me for money.  ", "email": "v@example.com"}
    )
    assert response.status_code == 200
    assert DONE in response.content.decode()
    (complaint,) = _complaints(site)
    assert (complaint.reason, complaint.text, complaint.email) == ("scam", "Asked me for money.", "v@example.com")
    assert complaint.reporter is None and complaint.profile is None


def test_a_member_reports_a_profile(site, client_for):
    me, other = member(site, "Me"), member(site, "Other")
    client = logged_in(site, client_for, me)
    page = client.get(f"/complaints?profile={other.pk}").content.decode()
    assert 'data-testid="complaint-about">About: Other<' in page
    assert f'name="profile" value="{other.pk}"' in page
    assert f'value="{me.user.email}"' in page  # prefilled
    response = client.post(
        "/complaints", {"reason": ComplaintReason.FAKE, "text": "Fake", "email": "", "profile": other.pk}
    )
    assert DONE in response.content.decode()
    (complaint,) = _complaints(site)
    assert complaint.reporter_id == me.user_id
    assert complaint.profile_id == other.pk
    assert complaint.email == me.user.email  # left blank: the account's address


def test_a_blocked_profile_can_still_be_reported(site, client_for):
    me, other = member(site, "Me"), member(site, "Other")
    with on_site(site):
        Block.objects.create(blocker=me.user, blocked=other)
    page = logged_in(site, client_for, me).get(f"/complaints?profile={other.pk}").content.decode()
    assert "About: Other" in page


@pytest.mark.parametrize("case", ["disabled", "unknown", "own"])
def test_only_a_visible_profile_is_named(site, client_for, case):
    me = member(site, "Me")
    hidden = member(site, "Hidden", status=ProfileStatus.DISABLED)
    target = {"disabled": hidden.pk, "unknown": 987654, "own": me.pk}[case]
    client = logged_in(site, client_for, me)
    page = client.get(f"/complaints?profile={target}").content.decode()
    assert "complaint-about" not in page
    response = client.post("/complaints", {"reason": "fake", "text": "x", "email": "a@example.com", "profile": target})
    assert "This profile could not be found." in response.content.decode()
    assert _complaints(site) == []


def test_every_error_next_to_its_field_and_nothing_typed_lost(site, client_for):
    response = client_for(site).post("/complaints", {"reason": "", "text": "   ", "email": ""})
    html = response.content.decode()
    assert response.status_code == 400
    assert 'data-testid="error-id_reason">' in html and "Choose a reason." in html
    assert 'data-testid="error-id_text">' in html and "Describe your complaint." in html
    assert 'data-testid="error-id_email">' in html and "Enter your e-mail address so that we can answer you." in html

    response = client_for(site).post(
        "/complaints", {"reason": "harassment", "text": "x" * 5001, "email": "not-an-address"}
    )
    html = response.content.decode()
    assert "Your complaint may be at most 5000 characters long." in html
    assert "Invalid email" in html
    assert '<option value="harassment" selected>' in html
    assert "x" * 5001 in html
    assert 'value="not-an-address"' in html
    assert _complaints(site) == []


def test_text_is_escaped_when_shown_again(site, client_for):
    response = client_for(site).post("/complaints", {"reason": "", "text": "<b>bold</b>", "email": ""})
    html = response.content.decode()
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "<b>bold</b>" not in html


def test_complaints_are_rate_limited(site, client_for, settings):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "complaint": "2/h/ip"}
    client = client_for(site)
    data = {"reason": "other", "text": "Spam", "email": "v@example.com"}
    for _ in range(2):
        assert DONE in client.post("/complaints", data).content.decode()
    html = client.post("/complaints", data).content.decode()
    assert "Too many complaints sent, please try again later." in html
    assert 'value="v@example.com"' in html and "Spam" in html
    assert len(_complaints(site)) == 2


def test_the_form_checks_csrf(site, client_for):
    client = client_for(site, enforce_csrf_checks=True)
    response = client.post("/complaints", {"reason": "other", "text": "x", "email": "v@example.com"})
    assert response.status_code == 403
    assert _complaints(site) == []


def test_the_profile_page_links_to_the_complaint_form(site, client_for):
    other = member(site, "Other")
    html = client_for(site).get(f"/members/{other.pk}").content.decode()
    assert f'href="/complaints?profile={other.pk}"' in html
    assert "Report this profile" in html
