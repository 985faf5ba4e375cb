"""Members for the login, password reset, admin and top-bar tests, made with the ORM on a site."""

from allauth.account.models import EmailAddress

from apps.accounts.models import User, UserStatus
from apps.profiles.models import Profile, ProfileStatus
from conftest import on_site

PASSWORD = "a-Long-passphrase-42"


def member_create(
    site,
    *,
    email: str = "anna@example.com",
    name: str = "Anna",
    password: str = PASSWORD,
    status: str = UserStatus.ACTIVE,
    profile_status: str | None = None,
    language: str = "en",
    **fields,
) -> User:
    """A member of `site` with a profile (active unless the member is not confirmed)."""
    confirmed = status != UserStatus.NOT_CONFIRMED
    if profile_status is None:
        profile_status = ProfileStatus.ACTIVE if confirmed else ProfileStatus.DISABLED
    with on_site(site):
        user = User.objects.create_user(
            username=name, email=email, password=password, status=status, language=language, **fields
        )
        Profile.objects.create(user=user, name=name, status=profile_status)
        EmailAddress.objects.create(user=user, email=email, primary=True, verified=confirmed)
    return user


def login(client, *, email: str = "anna@example.com", password: str = PASSWORD):
    return client.post("/login", {"email": email, "password": password})
