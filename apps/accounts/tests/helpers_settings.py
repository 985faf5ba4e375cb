"""Members for the settings, deletion and export tests, made with the ORM on a site."""

import io
import re
from datetime import date

from allauth.account.models import EmailAddress
from django.core.files.base import ContentFile
from PIL import Image

from apps.accounts.models import PushSubscription, SignupTracking, User, UserStatus
from apps.accounts.services.directory import directory_sync
from apps.profiles.models import Photo, PhotoStatus, Profile, ProfileStatus
from conftest import on_site

PASSWORD = "a-Long-passphrase-42"


def member_create(site, *, email: str = "anna@example.com", name: str = "Anna", confirmed: bool = True, **fields):
    with on_site(site):
        user = User.objects.create_user(
            username=name,
            email=email,
            password=PASSWORD,
            date_of_birth=date(1990, 4, 5),
            country="GB",
            status=UserStatus.ACTIVE if confirmed else UserStatus.NOT_CONFIRMED,
            **fields,
        )
        Profile.objects.create(
            user=user,
            name=name,
            date_of_birth=user.date_of_birth,
            country="GB",
            city="London",
            about_me=f"About {name}",
            status=ProfileStatus.ACTIVE if confirmed else ProfileStatus.DISABLED,
        )
        SignupTracking.objects.create(user=user, network=f"net-{name}", sub1="campaign")
        EmailAddress.objects.create(user=user, email=email, primary=True, verified=confirmed)
        directory_sync(user=user)
    return user


def jpeg(colour=(200, 40, 40), size=(40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="JPEG")
    return out.getvalue()


def photo_add(site, user, *, name: str = "photo", status: str = PhotoStatus.ACTIVE) -> Photo:
    with on_site(site):
        photo = Photo(profile=user.profile, status=status)
        photo.image.save(f"{name}.jpg", ContentFile(jpeg()), save=False)
        photo.thumb.save(f"{name}-thumb.jpg", ContentFile(jpeg(size=(10, 10))), save=False)
        photo.width, photo.height = 40, 30
        photo.save()
    return photo


def push_add(site, user, *, n: int = 1) -> None:
    with on_site(site):
        first = PushSubscription.objects.filter(user=user).count()
        PushSubscription.objects.bulk_create(
            PushSubscription(user=user, endpoint=f"https://push.example/{user.pk}/{i}", p256dh="k", auth="a")
            for i in range(first, first + n)
        )


def logged_in(site, client_for, user):
    client = client_for(site)
    with on_site(site):
        client.force_login(user, backend="allauth.account.auth_backends.AuthenticationBackend")
    return client


def link_in(message, route: str) -> str:
    """The path and query of the first link to `route` in a mail."""
    url = re.search(rf"https?://[^/\s]+(/{route}\?\S+)", message.body)
    assert url, message.body
    return url.group(1)
