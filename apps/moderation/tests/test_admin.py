"""The queues in the operators' admin: permissions (view to see, change to decide),
foreign and unknown ids, bad input, oldest first across sites and per site, the photo
served to staff only, the complaint page with what it names (and no other message),
and the queue sizes on the admin index."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse as django_reverse
from django.utils import timezone

from apps.chat.tests.helpers import credits_give, send
from apps.moderation.models import ComplaintCase, PhotoReview
from apps.moderation.tests.helpers import complain, person, upload
from apps.profiles.models import Complaint, Photo, PhotoStatus
from apps.support.models import AuditEntry
from conftest import on_site
from tests.staff import ADMIN_HOST, staff_client, staff_member

pytestmark = pytest.mark.django_db

QUEUE = "admin:moderation_photoreview_queue"


def reverse(name: str, args=None) -> str:
    """Admin addresses live in the operators' host's URLs."""
    return django_reverse(name, args=args, urlconf="config.urls_public")


@pytest.fixture(autouse=True)
def _media_in_tmp(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def support():
    return staff_client(staff_member("support"))


def _queued(site, profile, *, days_ago: int, colour=(200, 80, 120)) -> PhotoReview:
    """A real upload, dated back so that the test's rows are the oldest in the queue."""
    photo = upload(site, profile, colour=colour)
    created = timezone.now() - timedelta(days=3650 + days_ago)
    PhotoReview.objects.filter(site=site, photo_id=photo.pk).update(created=created)
    return PhotoReview.objects.get(site=site, photo_id=photo.pk)


def _current(response) -> int:
    html = response.content.decode()
    marker = 'data-testid="queue-item" data-review-id="'
    start = html.index(marker) + len(marker)
    return int(html[start : html.index('"', start)])


# --- Permissions and ids ----------------------------------------------------------------


def _queue_urls(review: PhotoReview, case: ComplaintCase) -> dict[str, tuple[str, str]]:
    return {
        "queue": ("get", reverse(QUEUE)),
        "history": ("get", reverse("admin:moderation_photoreview_changelist")),
        "image": ("get", reverse("admin:moderation_photoreview_image", args=[review.pk, "thumb"])),
        "decide": ("post", reverse("admin:moderation_photoreview_decide", args=[review.pk])),
        "complaints": ("get", reverse("admin:moderation_complaintcase_changelist")),
        "handle": ("get", reverse("admin:moderation_complaintcase_handle", args=[case.pk])),
        "move": ("post", reverse("admin:moderation_complaintcase_move", args=[case.pk])),
        "complaint_image": ("get", reverse("admin:moderation_complaintcase_image", args=[case.pk, "profile"])),
    }


def test_staff_without_the_queues_permissions_get_403(site):
    anna = person(site)
    review = _queued(site, anna, days_ago=1)
    case = ComplaintCase.objects.get(complaint_id=complain(site, None, about=anna).pk, site=site)
    operator = staff_client(staff_member("operators"))
    for name, (method, url) in _queue_urls(review, case).items():
        response = getattr(operator, method)(url, {"decision": "approved", "to": "in_progress"})
        assert response.status_code == 403, name
    assert Photo.objects.none().count() == 0
    with on_site(site):
        assert Photo.objects.get(pk=review.photo_id).status == PhotoStatus.PENDING


def test_visitors_and_member_hosts_never_reach_the_queues(site, client_for):
    review = _queued(site, person(site), days_ago=1)
    image = reverse("admin:moderation_photoreview_image", args=[review.pk, "full"])
    response = Client(HTTP_HOST=ADMIN_HOST).get(image)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert client_for(site).get(image).status_code == 404  # the admin lives on the operators' host only
    # The member-side address of a waiting photo shows it to its member only.
    assert client_for(site).get(f"/media/{review.image}").status_code == 404


def test_view_only_staff_see_the_queue_but_cannot_decide(site):
    review = _queued(site, person(site), days_ago=1)
    viewer = staff_member("operators")
    viewer.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="moderation", codename__startswith="view_")
    )
    client = staff_client(viewer)
    page = client.get(reverse(QUEUE))
    assert page.status_code == 200 and 'data-testid="queue-approve"' not in page.content.decode()
    decide = reverse("admin:moderation_photoreview_decide", args=[review.pk])
    assert client.post(decide, {"decision": "approved"}).status_code == 403


def test_unknown_ids_are_404_and_get_on_a_form_is_405(support):
    for url in (
        reverse("admin:moderation_photoreview_decide", args=[987654321]),
        reverse("admin:moderation_complaintcase_move", args=[987654321]),
    ):
        assert support.post(url, {"decision": "approved", "to": "in_progress"}).status_code == 404
        assert support.get(url).status_code == 405
    for url in (
        reverse("admin:moderation_photoreview_image", args=[987654321, "thumb"]),
        reverse("admin:moderation_complaintcase_handle", args=[987654321]),
        reverse("admin:moderation_complaintcase_image", args=[987654321, "photo"]),
        "/admin/moderation/complaintcase/abc/change/",
    ):
        assert support.get(url).status_code == 404, url


def test_an_image_of_another_kind_or_outside_the_site_is_404(site, gay_site, support):
    review = _queued(site, person(site), days_ago=1)
    assert support.get(reverse("admin:moderation_photoreview_image", args=[review.pk, "raw"])).status_code == 404
    # A row whose file lies in another site's folder is never served.
    other = _queued(gay_site, person(gay_site), days_ago=1)
    PhotoReview.objects.filter(pk=review.pk).update(thumb=other.thumb)
    assert support.get(reverse("admin:moderation_photoreview_image", args=[review.pk, "thumb"])).status_code == 404


# --- The photo queue -------------------------------------------------------------------------


def test_the_queue_shows_the_oldest_photo_first_across_sites_and_per_site(site, gay_site, support):
    anna, ben = person(site), person(gay_site, "Ben")
    newer = _queued(site, anna, days_ago=1)
    oldest = _queued(gay_site, ben, days_ago=5)
    page = support.get(reverse(QUEUE))
    assert page.status_code == 200 and _current(page) == oldest.pk
    html = page.content.decode()
    assert ben.name in html and gay_site.name in html
    assert reverse("admin:moderation_photoreview_image", args=[oldest.pk, "full"]) in html
    assert 'data-testid="queue-age"' in html and "years" in html
    page = support.get(reverse(QUEUE), {"site": site.pk})
    assert _current(page) == newer.pk
    # The photo itself, for staff, not cached publicly.
    image = support.get(reverse("admin:moderation_photoreview_image", args=[oldest.pk, "full"]))
    assert image.status_code == 200 and image["Content-Type"] == "image/jpeg"
    assert image["Cache-Control"].startswith("private")
    assert b"".join(image.streaming_content)[:2] == b"\xff\xd8"
    # Bad filters are ignored, not errors.
    assert support.get(reverse(QUEUE), {"site": "x", "item": "-4"}).status_code == 200


def test_approve_then_reject_with_a_reason_and_the_next_photo_follows(site, support):
    anna = person(site)
    first, second, third = (_queued(site, anna, days_ago=days, colour=(days, 9, 9)) for days in (9, 8, 7))
    queue = support.get(reverse(QUEUE), {"site": site.pk})
    assert _current(queue) == first.pk
    decide = reverse("admin:moderation_photoreview_decide", args=[first.pk])
    response = support.post(decide, {"decision": "approved", "next": second.pk, "site": site.pk})
    assert response.status_code == 302
    assert response["Location"] == f"{reverse(QUEUE)}?site={site.pk}&item={second.pk}"
    page = support.get(response["Location"])
    assert _current(page) == second.pk and f"Photo {first.photo_id} approved." in page.content.decode()

    decide = reverse("admin:moderation_photoreview_decide", args=[second.pk])
    response = support.post(decide, {"decision": "rejected", "reason": "nudity", "note": "", "site": site.pk})
    assert response.status_code == 302
    page = support.get(response["Location"])
    assert _current(page) == third.pk
    assert "rejected: Nudity or sexual content." in page.content.decode()
    with on_site(site):
        assert Photo.objects.get(pk=first.photo_id).status == PhotoStatus.ACTIVE
        stored = Photo.objects.get(pk=second.photo_id)
        assert (stored.status, stored.rejection_reason) == (PhotoStatus.REJECTED, "nudity")
    targets = [f"photo {first.photo_id}", f"photo {second.photo_id}", f"photo {third.photo_id}"]
    audited = AuditEntry.objects.filter(site_id=site.pk, target__in=targets).values_list("action", "target")
    assert sorted(audited) == [("photo.approve", targets[0]), ("photo.reject", targets[1])]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"decision": "rejected"}, "Choose a reason for the rejection."),
        ({"decision": "rejected", "reason": "ugly"}, "Select a valid choice."),
        ({"decision": "delete"}, "Select a valid choice."),
        ({}, "This field is required."),
        ({"decision": "approved", "next": "abc"}, "Enter a whole number."),
        ({"decision": "approved", "note": "x" * 2001}, "at most 2000 characters"),
    ],
)
def test_bad_input_is_400_with_a_message(site, support, data, message):
    review = _queued(site, person(site), days_ago=1)
    response = support.post(reverse("admin:moderation_photoreview_decide", args=[review.pk]), data)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-testid="queue-errors"' in html and message in html
    review.refresh_from_db()
    assert review.decision == "pending"


def test_a_photo_decided_meanwhile_is_a_warning_not_an_error(site, support):
    review = _queued(site, person(site), days_ago=1)
    url = reverse("admin:moderation_photoreview_decide", args=[review.pk])
    assert support.post(url, {"decision": "approved"}).status_code == 302
    response = support.post(url, {"decision": "rejected", "reason": "nudity"}, follow=True)
    assert response.status_code == 200
    assert "This photo has been decided already" in response.content.decode()


def test_a_photo_deleted_with_its_account_leaves_the_queue_when_shown(site, support):
    anna = person(site)
    gone = _queued(site, anna, days_ago=30)
    kept = _queued(site, person(site, "Kept"), days_ago=29)
    with on_site(site):
        anna.user.delete()
    page = support.get(reverse(QUEUE), {"site": site.pk})
    assert _current(page) == kept.pk
    assert not PhotoReview.objects.filter(pk=gone.pk).exists()


def test_more_gone_photos_than_one_page_prunes_still_show_the_queue(site, support):
    """A bulk deletion leaves more gone photos at the head of the queue than one page
    prunes (PRUNE_LIMIT): the page still answers, and the next ones get to the kept photo."""
    from apps.moderation.admin import PRUNE_LIMIT

    leaving = [person(site, f"Leaving{number}") for number in range(PRUNE_LIMIT + 2)]
    gone = [_queued(site, profile, days_ago=60 - number) for number, profile in enumerate(leaving)]
    kept = _queued(site, person(site, "Kept"), days_ago=29)
    with on_site(site):
        for profile in leaving:
            profile.user.delete()
    page = support.get(reverse(QUEUE), {"site": site.pk})
    assert page.status_code == 200
    assert 'data-testid="queue-item"' not in page.content.decode()
    assert PhotoReview.objects.filter(pk__in=[review.pk for review in gone]).count() == 2
    page = support.get(reverse(QUEUE), {"site": site.pk})
    assert _current(page) == kept.pk
    assert not PhotoReview.objects.filter(pk__in=[review.pk for review in gone]).exists()


def test_the_history_lists_decisions_read_only(site, support):
    review = _queued(site, person(site), days_ago=1)
    support.post(reverse("admin:moderation_photoreview_decide", args=[review.pk]), {"decision": "approved"})
    page = support.get(reverse("admin:moderation_photoreview_changelist"), {"decision__exact": "approved"})
    assert page.status_code == 200 and 'data-testid="open-photo-queue"' in page.content.decode()
    change = support.post(reverse("admin:moderation_photoreview_change", args=[review.pk]), {"decision": "pending"})
    assert change.status_code in (200, 403)
    review.refresh_from_db()
    assert review.decision == "approved"
    assert support.get(reverse("admin:moderation_photoreview_add")).status_code == 403


# --- Complaints ----------------------------------------------------------------------------


def _conversation(site):
    """Rita and Sam write 8 messages; returns them and the messages, oldest first."""
    rita, sam = person(site, "Rita"), person(site, "Sam")
    credits_give(site, rita.user, 100)
    credits_give(site, sam.user, 100)
    messages = []
    for number in range(8):
        sender, recipient = (rita, sam) if number % 2 == 0 else (sam, rita)
        messages.append(send(site, sender, recipient, text=f"message {number}")[1])
    return rita, sam, messages


def test_a_complaint_shows_the_named_message_and_only_a_few_around_it(site, support):
    rita, sam, messages = _conversation(site)
    send(site, sam, person(site, "Else"), text="in another conversation")
    named = messages[5]  # from Sam to Rita
    complaint = complain(site, rita, message_id=named.pk, text="Insults <script>alert(1)</script>")
    assert complaint.profile_id == sam.pk and complaint.message_id == named.pk
    case = ComplaintCase.objects.get(site=site, complaint_id=complaint.pk)
    assert (case.message_id, case.member_id) == (named.pk, sam.user_id)
    page = support.get(reverse("admin:moderation_complaintcase_handle", args=[case.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert 'data-testid="complaint-message-named"' in html and "message 5" in html
    for number in (2, 3, 4, 6, 7):
        assert f"message {number}<" in html
    for number in (0, 1):
        assert f"message {number}<" not in html
    assert "in another conversation" not in html
    assert "&lt;script&gt;" in html and "<script>alert" not in html


def test_a_complaint_without_a_message_shows_no_message(site, support):
    rita, sam, _messages = _conversation(site)
    complaint = complain(site, rita, about=sam)
    case = ComplaintCase.objects.get(site=site, complaint_id=complaint.pk)
    html = support.get(reverse("admin:moderation_complaintcase_handle", args=[case.pk])).content.decode()
    assert "complaint-messages" not in html and "message 1" not in html


def test_take_and_resolve_from_the_complaint_page(site, support):
    anna = person(site)
    photo = upload(site, anna)
    with on_site(site):
        Photo.objects.filter(pk=photo.pk).update(status=PhotoStatus.ACTIVE)
    complaint = complain(site, person(site, "Rep"), about=anna, photo_id=photo.pk)
    case = ComplaintCase.objects.get(site=site, complaint_id=complaint.pk)
    handle = reverse("admin:moderation_complaintcase_handle", args=[case.pk])
    move = reverse("admin:moderation_complaintcase_move", args=[case.pk])
    html = support.get(handle).content.decode()
    assert reverse("admin:moderation_complaintcase_image", args=[case.pk, "photo"]) in html
    image = support.get(reverse("admin:moderation_complaintcase_image", args=[case.pk, "photo"]))
    assert image.status_code == 200
    assert support.post(move, {"to": "in_progress"})["Location"] == handle
    response = support.post(move, {"to": "resolved", "action": "photo_hidden", "note": "Hidden."})
    assert response.status_code == 302
    with on_site(site):
        stored = Complaint.objects.get(pk=complaint.pk)
    assert (stored.status, stored.action, stored.action_note) == ("resolved", "photo_hidden", "Hidden.")
    page = support.get(reverse("admin:moderation_complaintcase_changelist"), {"status__exact": "resolved"})
    assert page.status_code == 200 and f">Complaint {complaint.pk}<" in page.content.decode()


@pytest.mark.parametrize(
    ("data", "status", "message"),
    [
        ({"to": "resolved"}, 400, "Choose the action taken."),
        ({"to": "resolved", "action": "other"}, 400, "Describe the action taken in the note."),
        ({"to": "closed"}, 400, "Select a valid choice."),
        ({"to": "open"}, 409, "cannot become open"),
    ],
)
def test_bad_complaint_moves_are_4xx_with_a_message(site, support, data, status, message):
    case = ComplaintCase.objects.get(site=site, complaint_id=complain(site, None).pk)
    response = support.post(reverse("admin:moderation_complaintcase_move", args=[case.pk]), data)
    assert response.status_code == status
    assert message in response.content.decode()
    case.refresh_from_db()
    assert case.status == "open"


def test_the_complaints_queue_lists_unresolved_oldest_first(site, gay_site, support):
    late = ComplaintCase.objects.get(site=site, complaint_id=complain(site, None).pk)
    early = ComplaintCase.objects.get(site=gay_site, complaint_id=complain(gay_site, None).pk)
    done = ComplaintCase.objects.get(site=site, complaint_id=complain(site, None).pk)
    ComplaintCase.objects.filter(pk=early.pk).update(created=timezone.now() - timedelta(days=4000))
    ComplaintCase.objects.filter(pk=done.pk).update(created=timezone.now() - timedelta(days=5000), status="resolved")
    html = support.get(reverse("admin:moderation_complaintcase_changelist")).content.decode()
    positions = [html.index(f">Complaint {case.complaint_id}<") for case in (early, late, done)]
    assert positions == sorted(positions)
    html = support.get(reverse("admin:moderation_complaintcase_changelist"), {"site__id__exact": site.pk}).content
    assert f">Complaint {early.complaint_id}<".encode() not in html


# --- The admin index ----------------------------------------------------------------------


def test_the_admin_index_shows_the_queue_sizes_to_support_only(site, support, django_assert_max_num_queries):
    _queued(site, person(site), days_ago=1)
    complain(site, None)
    pending = PhotoReview.objects.filter(decision="pending").count()
    unresolved = ComplaintCase.objects.exclude(status="resolved").count()
    html = support.get(reverse("admin:index")).content.decode()
    assert 'data-testid="queue-sizes"' in html
    assert f"<strong>{pending}</strong> photo" in html and f"<strong>{unresolved}</strong> complaint" in html
    operator_html = staff_client(staff_member("operators")).get(reverse("admin:index")).content.decode()
    assert 'data-testid="queue-sizes"' not in operator_html
