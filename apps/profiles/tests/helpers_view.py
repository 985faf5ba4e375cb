"""Members and photos for the profile-view, block and complaint tests (ORM, in the
site's schema). Photos are rows only: the pages only need their addresses."""

import uuid
from datetime import date

from apps.accounts.models import User
from apps.profiles.models import Photo, PhotoStatus, Profile, ProfileStatus
from conftest import on_site

PASSWORD = "a-Long-passphrase-42"


def member(site, name: str, *, user_fields: dict | None = None, **fields) -> Profile:
    """An active member with a profile, made on `site`."""
    with on_site(site):
        user = User.objects.create_user(
            username=name,
            email=f"{name.lower()}-{uuid.uuid4().hex[:6]}@example.com",
            password=PASSWORD,
            **(user_fields or {}),
        )
        values = {
            "name": name,
            "status": ProfileStatus.ACTIVE,
            "gender": "female",
            "country": "GB",
            "city": "Leeds",
            "date_of_birth": date(1990, 4, 5),
            **fields,
        }
        return Profile.objects.create(user=user, **values)


def photos_add(site, profile: Profile, n: int, *, status: str = PhotoStatus.ACTIVE, main: bool = True) -> list[Photo]:
    with on_site(site):
        photos = [
            Photo.objects.create(
                profile=profile,
                image=f"photos/p{profile.pk}-{i}-{uuid.uuid4().hex[:6]}.jpg",
                thumb=f"photos/thumbs/p{profile.pk}-{i}-{uuid.uuid4().hex[:6]}.jpg",
                width=400,
                height=400,
                status=status,
            )
            for i in range(n)
        ]
        if main and photos and profile.main_photo_id is None:
            profile.main_photo = photos[0]
            profile.save(update_fields=["main_photo"])
    return photos


def logged_in(site, client_for, profile: Profile):
    client = client_for(site)
    with on_site(site):
        client.force_login(profile.user, backend="allauth.account.auth_backends.AuthenticationBackend")
    return client
