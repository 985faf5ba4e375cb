"""A member's rows are locked in one order: the account, then the profile (issue 13, found
by running the browser tests on a busy machine: GET /activate answered "deadlock detected"
while the last signup step was being saved). The two requests are made to meet exactly at
the point where the old order deadlocked."""

import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection
from django.db.models.signals import post_save
from django.test import RequestFactory

from apps.accounts.models import User, UserStatus
from apps.accounts.services.signup import member_confirm_email
from apps.accounts.services.signup_steps import signup_profile_update
from apps.accounts.services.tokens import member_token_make
from apps.profiles.models import Profile
from conftest import on_site
from tests.live import in_thread

pytestmark = pytest.mark.django_db

MEET_SECONDS = 3


def test_confirming_the_email_while_the_last_signup_step_is_saved_deadlocks(site, committed):
    from allauth.account.models import EmailAddress

    anna = committed.member(site, "Anna")

    def unconfirmed() -> str:
        with on_site(site):
            User.objects.filter(pk=anna.user.pk).update(status=UserStatus.NOT_CONFIRMED)
            address, _created = EmailAddress.objects.update_or_create(
                user=anna.user, email=anna.user.email, defaults={"primary": True, "verified": False}
            )
            return member_token_make(purpose="activate", member_id=anna.user.pk, a=address.pk, e=address.email)

    key = in_thread(unconfirmed)

    meet = threading.Barrier(2, timeout=MEET_SECONDS)

    def at_the_meeting_point(sender, instance, **kwargs) -> None:
        if getattr(threading.current_thread(), "meets", False):
            # Both hold their first lock here; a broken barrier means the other is waiting
            # for our lock: the right order at work.
            with contextlib.suppress(threading.BrokenBarrierError):
                meet.wait()

    def save_the_last_step():
        threading.current_thread().meets = True
        try:
            with on_site(site):
                signup_profile_update(site=site, user=anna.user, data={"city": "York"}, done=True)
        finally:
            connection.close()

    def confirm():
        threading.current_thread().meets = True
        try:
            with on_site(site):
                request = RequestFactory().get("/activate", HTTP_HOST="localhost")
                request.site = site
                request.session = SessionStore()
                request.user = anna.user
                request._messages = FallbackStorage(request)
                return member_confirm_email(request=request, key=key)
        finally:
            connection.close()

    post_save.connect(at_the_meeting_point, sender=Profile, dispatch_uid="meet-profile")
    post_save.connect(at_the_meeting_point, sender=User, dispatch_uid="meet-user")
    try:
        with ThreadPoolExecutor(2) as pool:
            step, confirmed = pool.submit(save_the_last_step), pool.submit(confirm)
            step.result(timeout=60)
            confirmed.result(timeout=60)
    finally:
        post_save.disconnect(dispatch_uid="meet-profile", sender=Profile)
        post_save.disconnect(dispatch_uid="meet-user", sender=User)

    def state():
        with on_site(site):
            user = User.objects.get(pk=anna.user.pk)
            return user.status, Profile.objects.get(user=user).city

    assert in_thread(state) == (UserStatus.ACTIVE, "York")
