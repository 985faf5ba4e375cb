"""Deleting a user touches only its own schema's tables (apps.accounts.user_relations):
erasing a site's member never deletes the admin log or the second factor of the staff
user with the same id in the public schema, and deleting a staff user does not look for
sites' tables in the public schema."""

import pytest
from django.contrib.admin.models import ADDITION, LogEntry
from django.contrib.contenttypes.models import ContentType
from django_otp.plugins.otp_totp.models import TOTPDevice

from apps.accounts.models import User
from apps.accounts.user_relations import PerSchemaRule
from apps.tenants.models import Site
from conftest import on_site
from tests.staff import staff_member

pytestmark = pytest.mark.django_db


def log_for(user: User) -> LogEntry:
    return LogEntry.objects.create(
        user=user,
        content_type=ContentType.objects.get_for_model(Site),
        object_id="1",
        object_repr="a site",
        action_flag=ADDITION,
    )


def test_erasing_a_member_keeps_the_staff_user_of_the_same_id(site):
    operator = staff_member("operators")
    log = log_for(operator)
    with on_site(site):
        member = User.objects.create_user(pk=operator.pk, username="same-id", email="same-id@example.com")
        member.delete()
        assert not User.objects.filter(pk=operator.pk).exists()
    assert User.objects.filter(pk=operator.pk, username=operator.username).exists()
    assert TOTPDevice.objects.filter(user_id=operator.pk, confirmed=True).exists()
    assert LogEntry.objects.filter(pk=log.pk).exists()


def test_deleting_a_staff_user_takes_its_device_and_log_only():
    operator = staff_member("support")
    log_for(operator)
    operator.delete()
    assert not TOTPDevice.objects.filter(user_id=operator.pk).exists()
    assert not LogEntry.objects.filter(user_id=operator.pk).exists()


def test_the_rules_equal_the_ones_they_wrap_so_migrations_do_not_change():
    from django.db.models import CASCADE

    from apps.profiles.models import Profile

    field = TOTPDevice._meta.get_field("user")
    assert isinstance(field.remote_field.on_delete, PerSchemaRule)
    assert field.remote_field.on_delete == CASCADE
    assert field.deconstruct()[3]["on_delete"] == CASCADE
    assert Profile._meta.get_field("user").remote_field.on_delete == CASCADE
