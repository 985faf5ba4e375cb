"""Members, uploaded photos and complaints for the queue tests (real uploads through the
profile services, so the queue rows are written the way production writes them)."""

from __future__ import annotations

import uuid

from django.test import RequestFactory

from apps.profiles.models import Complaint, Photo, Profile
from apps.profiles.services.complaints import complaint_create
from apps.profiles.services.photos import photo_upload
from apps.profiles.tests.helpers import jpeg_upload
from apps.profiles.tests.helpers_view import member
from conftest import on_site


def person(site, name: str = "Anna", **fields) -> Profile:
    """An active member with a profile and a unique name."""
    return member(site, f"{name}{uuid.uuid4().hex[:6]}", **fields)


def upload(site, profile: Profile, colour=(200, 80, 120)) -> Photo:
    with on_site(site):
        return photo_upload(site=site, user=profile.user, upload=jpeg_upload(colour=colour))


def complain(site, reporter: Profile | None, *, about: Profile | None = None, **kwargs) -> Complaint:
    request = RequestFactory().post(
        "/complaints", REMOTE_ADDR=f"10.9.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"
    )
    request.site = site
    with on_site(site):
        return complaint_create(
            request=request,
            reporter=reporter.user if reporter else _anonymous(),
            reason=kwargs.pop("reason", "fake"),
            text=kwargs.pop("text", "Not a real person."),
            email=kwargs.pop("email", "reporter@example.com"),
            profile_id=about.pk if about else None,
            **kwargs,
        )


def _anonymous():
    from django.contrib.auth.models import AnonymousUser

    return AnonymousUser()
