import re
from datetime import date

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings
from django.core import mail
from django.utils import timezone

from apps.accounts.models import SignupTracking, User, UserStatus
from apps.profiles.models import Profile, ProfileStatus
from apps.tenants.models import MemberDirectoryEntry
from conftest import on_site

pytestmark = pytest.mark.django_db

PASSWORD = "a-Long-passphrase-42"


def signup_data(**overrides) -> dict:
    data = {"email": "anna@example.com", "name": "Anna", "date_of_birth": "1990-04-05", "password": PASSWORD}
    data.update(overrides)
    return data


def post(client, path, data, **extra):
    return client.post(path, data, content_type="application/json", **extra)


def errors_of(response) -> dict:
    return response.json()["error"].get("fields", {})


def activation_link(message) -> str:
    return re.search(r"https?://\S+/activate\?key=\S+", message.body).group(0)


class TestSignup:
    def test_creates_an_unconfirmed_member_with_a_disabled_profile_and_logs_in(self, site, client_for):
        client = client_for(site)
        response = post(client, "/api/signup.php", signup_data())
        assert response.status_code == 201, response.content
        user = response.json()["user"]
        assert user["status"] == "not_confirmed" and user["name"] == "Anna"
        assert client.get("/api/user.php").json()["user"]["email"] == "anna@example.com"
        with on_site(site):
            member = User.objects.get(email="anna@example.com")
            assert member.profile.status == ProfileStatus.DISABLED
            assert member.date_of_birth == date(1990, 4, 5)
        entry = MemberDirectoryEntry.objects.get(site=site, member_id=member.pk)
        assert (entry.email, entry.name, entry.status) == ("anna@example.com", "Anna", "not_confirmed")

    def test_sends_the_confirmation_mail_with_the_site_name_and_company(self, site, client_for):
        post(client_for(site), "/api/signup.php", signup_data())
        assert len(mail.outbox) == 1
        message = mail.outbox[0]
        assert message.to == ["anna@example.com"]
        assert "Heartline" in message.subject and "Heartline" in message.from_email
        assert "Demo Dating B.V." in message.body
        assert "/activate?key=" in message.body

    def test_the_mail_is_in_the_members_language(self, site, client_for):
        client = client_for(site)
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
        post(client, "/api/signup.php", signup_data())
        assert "Bonjour Anna" in mail.outbox[0].body

    @pytest.mark.parametrize(
        ("overrides", "field", "message"),
        [
            ({"email": "not-an-email"}, "email", "Invalid email"),
            ({"name": "@anna"}, "name", "Username may not start with @"),
            ({"name": "anna@example.com"}, "name", "Username may not be the same as your e-mail address"),
            ({"date_of_birth": ""}, "date_of_birth", "Enter your date of birth (18+)"),
            ({"date_of_birth": "2015-01-01"}, "date_of_birth", "Enter your date of birth (18+)"),
            ({"date_of_birth": "1990-02-30"}, "date_of_birth", "Invalid date of birth."),
            ({"date_of_birth": "2999-01-01"}, "date_of_birth", "Invalid date of birth."),
            ({"password": "123"}, "password", "This password is too short. It must contain at least 8 characters."),
        ],
    )
    def test_each_rule_has_its_message(self, site, client_for, overrides, field, message):
        response = post(client_for(site), "/api/signup.php", signup_data(**overrides))
        assert response.status_code == 400
        assert message in errors_of(response)[field]
        with on_site(site):
            assert not User.objects.filter(email=signup_data(**overrides)["email"]).exists()

    def test_the_sites_minimum_age_applies(self, site, client_for):
        site.min_age = 21
        site.save()
        today = timezone.localdate()
        twenty = today.replace(year=today.year - 20).isoformat()
        response = post(client_for(site), "/api/signup.php", signup_data(date_of_birth=twenty))
        assert "Enter your date of birth (21+)" in errors_of(response)["date_of_birth"]

    def test_an_existing_active_account_gets_a_login_prompt(self, site, client_for):
        post(client_for(site), "/api/signup.php", signup_data())
        response = post(client_for(site), "/api/signup.php", signup_data(email="ANNA@example.com", name="Other"))
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "account_exists"

    def test_an_account_pending_deletion_gets_reactivation_guidance(self, site, client_for):
        post(client_for(site), "/api/signup.php", signup_data())
        with on_site(site):
            User.objects.filter(email="anna@example.com").update(status=UserStatus.DELETED)
        response = post(client_for(site), "/api/signup.php", signup_data(name="Other"))
        assert response.json()["error"]["code"] == "account_deleted"
        assert "Reactivate" in response.json()["error"]["message"]

    def test_the_same_email_may_sign_up_on_another_site(self, two_sites, client_for):
        first, second = two_sites
        assert post(client_for(first), "/api/signup.php", signup_data()).status_code == 201
        assert post(client_for(second), "/api/signup.php", signup_data()).status_code == 201

    def test_with_trafficsource_needs_a_tracking_network(self, site, client_for):
        site.signups = "with_trafficsource"
        site.save()
        client = client_for(site)
        response = post(client, "/api/signup.php", signup_data())
        assert response.status_code == 403 and response.json()["error"]["code"] == "signups_closed"
        arrival = client.get("/?network=adnet&sub1=campaign&lang=x")
        assert arrival.status_code == 302 and arrival.headers["Location"] == "/?lang=x"
        assert post(client, "/api/signup.php", signup_data()).status_code == 201
        with on_site(site):
            tracking = SignupTracking.objects.get(user__email="anna@example.com")
            assert (tracking.network, tracking.sub1) == ("adnet", "campaign")

    def test_login_csrf_is_enforced_for_visitors(self, site, client_for):
        client = client_for(site, enforce_csrf_checks=True)
        response = post(client, "/api/signup.php", signup_data())
        assert response.status_code == 403
        with on_site(site):
            assert not User.objects.exists()


class TestActivation:
    def test_the_link_confirms_the_member_and_enables_the_profile(self, site, client_for):
        client = client_for(site)
        post(client, "/api/signup.php", signup_data())
        link = activation_link(mail.outbox[0])
        response = client.get(link[link.index("/activate") :])
        assert response.status_code == 302 and response.headers["Location"] == "/activate/done"
        with on_site(site):
            member = User.objects.get(email="anna@example.com")
            assert member.status == UserStatus.ACTIVE
            assert Profile.objects.get(user=member).status == ProfileStatus.ACTIVE
        assert MemberDirectoryEntry.objects.get(member_id=member.pk, site=site).status == "active"
        assert "Search members" in client.get("/activate/done").content.decode()

    def test_a_bad_key_fails(self, site, client_for):
        response = client_for(site).get("/activate?key=forged")
        assert response.headers["Location"] == "/activate/error"
        assert "Activation failed" in client_for(site).get("/activate/error").content.decode()

    def test_a_key_from_another_site_fails_even_for_the_same_address_id(self, two_sites, client_for):
        first, second = two_sites
        post(client_for(first), "/api/signup.php", signup_data())
        post(client_for(second), "/api/signup.php", signup_data(email="bea@example.com", name="Bea"))
        with on_site(first):
            first_id = EmailAddress.objects.get(email="anna@example.com").pk
        with on_site(second):
            # Both sites hold an address row with the same id (sequences are per schema).
            EmailAddress.objects.filter(pk=first_id).exclude(email="bea@example.com").delete()
            EmailAddress.objects.filter(email="bea@example.com").update(id=first_id)
        link = activation_link(mail.outbox[0])
        response = client_for(second).get(link[link.index("/activate") :])
        assert response.headers["Location"] == "/activate/error"
        with on_site(second):
            assert User.objects.get(email="bea@example.com").status == UserStatus.NOT_CONFIRMED


class TestLogin:
    @pytest.fixture
    def member(self, site, client_for):
        post(client_for(site), "/api/signup.php", signup_data())

    def test_login_returns_the_user(self, site, client_for, member):
        client = client_for(site)
        response = post(client, "/api/user.php", {"email": "Anna@Example.com", "password": PASSWORD})
        assert response.status_code == 200 and response.json()["user"]["name"] == "Anna"
        assert response.cookies[settings.SESSION_COOKIE_NAME]["max-age"] == 30 * 24 * 60 * 60

    def test_wrong_password(self, site, client_for, member):
        response = post(client_for(site), "/api/user.php", {"email": "anna@example.com", "password": "nope"})
        assert response.status_code == 400
        assert response.json()["error"]["message"] == "Login failed, please try again"

    def test_lockout_after_too_many_attempts(self, site, client_for, member):
        client = client_for(site)
        for _attempt in range(settings.LOGIN_LOCKOUT_ATTEMPTS):
            post(client, "/api/user.php", {"email": "anna@example.com", "password": "wrong"})
        response = post(client, "/api/user.php", {"email": "anna@example.com", "password": PASSWORD})
        assert response.status_code == 429
        assert response.json()["error"]["message"] == (
            f"Too many incorrect attempts, account blocked for {settings.LOGIN_LOCKOUT_MINUTES} min."
        )

    def test_a_session_of_one_site_is_anonymous_on_another(self, two_sites, client_for, member):
        first, second = two_sites
        client = client_for(first)
        post(client, "/api/user.php", {"email": "anna@example.com", "password": PASSWORD})
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
        other = client_for(second)
        other.cookies[settings.SESSION_COOKIE_NAME] = cookie
        response = other.get("/api/user.php")
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "authentication_required"

    def test_logout(self, site, client_for, member):
        client = client_for(site)
        post(client, "/api/user.php", {"email": "anna@example.com", "password": PASSWORD})
        assert client.get("/api/logout.php").json() == {"user": None}
        assert client.get("/api/user.php").status_code == 403

    def test_change_language(self, site, client_for, member):
        client = client_for(site)
        post(client, "/api/user.php", {"email": "anna@example.com", "password": PASSWORD})
        response = client.put("/api/user.php", {"language": "fr"}, content_type="application/json")
        assert response.json()["user"]["language"] == "fr"
        assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fr"
        bad = client.put("/api/user.php", {"language": "pl"}, content_type="application/json")
        assert bad.status_code == 400

    def test_logging_in_on_another_device_brings_the_members_language(self, site, client_for, member):
        """The language chosen on one device (kept on the account) is the pages' language
        on the next device the member logs in on, even where the browser asks for
        another; a language the site no longer offers is left alone."""
        phone = client_for(site)
        post(phone, "/api/user.php", {"email": "anna@example.com", "password": PASSWORD})
        phone.put("/api/user.php", {"language": "fr"}, content_type="application/json")
        computer = client_for(site)
        computer.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
        assert computer.get("/").headers["Content-Language"] == "en"
        login = post(computer, "/api/user.php", {"email": "anna@example.com", "password": PASSWORD})
        assert login.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fr"
        assert computer.get("/").headers["Content-Language"] == "fr"
        # Logging in again with the cookie already right writes nothing.
        computer.get("/api/logout.php")
        again = post(computer, "/api/user.php", {"email": "anna@example.com", "password": PASSWORD})
        assert settings.LANGUAGE_COOKIE_NAME not in again.cookies
        # A language chosen on a browser stays that browser's.
        tablet = client_for(site)
        tablet.post("/lang-config", {"language": "en", "next": "/"})
        chosen = post(tablet, "/api/user.php", {"email": "anna@example.com", "password": PASSWORD})
        assert settings.LANGUAGE_COOKIE_NAME not in chosen.cookies
        assert tablet.get("/").headers["Content-Language"] == "en"
        # The site stops offering French: the next login keeps the browser's choice.
        site.languages = [code for code in site.languages if code != "fr"]
        site.save(update_fields=["languages"])
        laptop = client_for(site)
        laptop.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
        third = post(laptop, "/api/user.php", {"email": "anna@example.com", "password": PASSWORD})
        assert settings.LANGUAGE_COOKIE_NAME not in third.cookies
        assert laptop.get("/").headers["Content-Language"] == "en"

    def test_the_user_object_shows_only_the_members_own_email(self, site, client_for, member):
        client = client_for(site)
        post(client_for(site), "/api/signup.php", signup_data(email="bob@example.com", name="Bob"))
        post(client, "/api/user.php", {"email": "anna@example.com", "password": PASSWORD})
        body = client.get("/api/user.php").content.decode()
        assert "anna@example.com" in body and "bob@example.com" not in body
        assert set(client.get("/api/user.php").json()["user"]) >= {
            "status",
            "credits",
            "paid_user",
            "language",
            "country",
            "notifications_disabled",
            "signup_date",
            "profile",
        }

    def test_push_subscription_is_stored(self, site, client_for, member):
        client = client_for(site)
        post(client, "/api/user.php", {"email": "anna@example.com", "password": PASSWORD})
        from apps.accounts.tests.test_push_subscriptions import subscription_of

        subscription = subscription_of("https://93.184.216.34/push/abc")
        assert post(client, "/api/user.php?push=1", {"subscription": subscription}).status_code == 200
        with on_site(site):
            assert User.objects.get(email="anna@example.com").push_subscriptions.count() == 1
        bad = post(client, "/api/user.php?push=1", {"subscription": {"endpoint": "http://x"}})
        assert bad.status_code == 400


def test_login_hands_the_rotated_csrf_token_to_the_islands(site, client_for):
    post(client_for(site), "/api/signup.php", signup_data())
    client = client_for(site)
    response = post(client, "/api/user.php", {"email": "anna@example.com", "password": PASSWORD})
    token = response.headers["X-CSRF-Token"]
    # The new token is accepted for the next unsafe call of that session.
    checked = client_for(site, enforce_csrf_checks=True)
    checked.cookies = client.cookies
    answer = checked.put("/api/user.php", {"language": "fr"}, content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert answer.status_code == 200


def test_the_signup_message_goes_only_to_an_active_profile(site, client_for):
    from apps.accounts.models import SignupMessage

    with on_site(site):
        active = Profile.objects.create(name="Carla", status=ProfileStatus.ACTIVE)
        hidden = Profile.objects.create(name="Dora", status=ProfileStatus.DISABLED)
    post(client_for(site), "/api/signup.php", signup_data(signup_message="Hi Carla!", profile_id=active.pk))
    post(
        client_for(site),
        "/api/signup.php",
        signup_data(email="eve@example.com", name="Eve", signup_message="Hi Dora", profile_id=hidden.pk),
    )
    with on_site(site):
        assert list(SignupMessage.objects.values_list("profile_id", "text")) == [(active.pk, "Hi Carla!")]


def test_the_member_gets_their_own_main_photo_with_its_match_picture(site, client_for):
    """GET /api/user.php: the own main photo, waiting or not, with the picture the match
    modal shows (the photo itself, docs/decisions.md "The match modal's photo")."""
    from apps.profiles.tests.helpers_view import logged_in, member, photos_add

    anna = member(site, "Anna")
    client = logged_in(site, client_for, anna)
    assert client.get("/api/user.php").json()["user"]["profile"]["main_image"] is None
    [photo] = photos_add(site, anna, 1, status="pending")
    main_image = client.get("/api/user.php").json()["user"]["profile"]["main_image"]
    assert main_image == {
        "filename": photo.image.url,
        "thumb_filename": photo.thumb.url,
        "match_filename": photo.image.url,
    }
