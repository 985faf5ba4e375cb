"""Keys stored in clear: a site's Mollie API key and push private key (and any provider
key added as an EncryptedCharField) are encrypted at rest with the deployment's
SECRETS_KEYS; the migration encrypts what was stored before; `secrets_rotate`
re-encrypts with the first key; production refuses to start without the keys; the admin
stays write-only. The database is read with SQL, as someone holding a copy of it would."""

import importlib
import io
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet, InvalidToken
from django.apps import apps as django_apps
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import override_settings

from apps.common.encryption import EncryptedCharField, SecretUnreadable, encrypted_fields
from apps.common.vapid import vapid_keys_generate
from apps.support.admin_audit import snapshot
from apps.tenants.admin import SiteAdminForm
from apps.tenants.middleware import site_cache_clear
from apps.tenants.models import Site
from apps.tenants.tests.test_site_admin_payments import change_data, post
from tests.production import production_environment
from tests.staff import staff_client, staff_member

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
MOLLIE_KEY = "live_" + "Secr3tMollieKey" * 2
migration = importlib.import_module("apps.tenants.migrations.0009_stored_keys_encrypted")


@pytest.fixture
def keys(site):
    """The site with both keys stored; its keys are removed again afterwards."""
    private, public = vapid_keys_generate()
    site.payment_gateway, site.mollie_api_key = "mollie", MOLLIE_KEY
    site.push_public_key, site.push_private_key = public, private
    site.save()
    yield site, private
    Site.objects.filter(pk=site.pk).update(
        payment_gateway="sandbox", mollie_api_key="", push_public_key="", push_private_key=""
    )
    site_cache_clear()


def stored_row(site) -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT mollie_api_key, push_private_key, tenants_site::text FROM public.tenants_site WHERE id = %s",
            [site.pk],
        )
        mollie, push, whole = cursor.fetchone()
    return {"mollie_api_key": mollie, "push_private_key": push, "row": whole}


def write_in_clear(site, **values) -> None:
    """As a process of the previous release (or the state before the migration) wrote it."""
    with connection.cursor() as cursor:
        for column, value in values.items():
            assert column in ("mollie_api_key", "push_private_key")
            cursor.execute(f"UPDATE public.tenants_site SET {column} = %s WHERE id = %s", [value, site.pk])


def rotate() -> str:
    out = io.StringIO()
    call_command("secrets_rotate", stdout=out)
    return out.getvalue()


def opens_with(key: str, token: str) -> str:
    return Fernet(key).decrypt(token.encode()).decode()


def test_keys_stored_in_clear_the_database_holds_only_tokens(keys):
    site, private = keys
    stored = stored_row(site)
    # Nowhere in the row, in no column: a dump or a replica holds no usable key.
    assert MOLLIE_KEY not in stored["row"] and private not in stored["row"]
    assert stored["mollie_api_key"].startswith("gAAAAA") and stored["push_private_key"].startswith("gAAAAA")
    # Each is a Fernet token of the deployment's first key, with a random IV of its own.
    assert opens_with(settings.SECRETS_KEYS[0], stored["mollie_api_key"]) == MOLLIE_KEY
    assert opens_with(settings.SECRETS_KEYS[0], stored["push_private_key"]) == private
    site.save()
    assert stored_row(site)["mollie_api_key"] != stored["mollie_api_key"]
    # The application reads the keys in clear.
    again = Site.objects.get(pk=site.pk)
    assert (again.mollie_api_key, again.push_private_key) == (MOLLIE_KEY, private)
    assert Site.objects.filter(pk=site.pk, mollie_api_key="").exists() is False


def test_keys_stored_in_clear_another_deployments_keys_open_nothing(keys):
    site, _private = keys
    with pytest.raises(InvalidToken):
        opens_with(Fernet.generate_key().decode(), stored_row(site)["mollie_api_key"])
    with override_settings(SECRETS_KEYS=[Fernet.generate_key().decode()]), pytest.raises(SecretUnreadable):
        Site.objects.get(pk=site.pk)


def test_keys_stored_in_clear_the_migration_encrypts_what_was_stored_before(keys):
    site, private = keys
    write_in_clear(site, mollie_api_key=MOLLIE_KEY, push_private_key=private)
    assert stored_row(site)["mollie_api_key"] == MOLLIE_KEY
    # A value in clear is still read (a process of the previous release may write one
    # during a deploy) until the migration or secrets_rotate encrypts it.
    assert Site.objects.get(pk=site.pk).mollie_api_key == MOLLIE_KEY

    migration.encrypt(django_apps, None)
    first = stored_row(site)
    assert MOLLIE_KEY not in first["row"] and private not in first["row"]
    assert opens_with(settings.SECRETS_KEYS[0], first["mollie_api_key"]) == MOLLIE_KEY
    # Run again (a rerun, or a site already encrypted): still the same keys.
    migration.encrypt(django_apps, None)
    assert opens_with(settings.SECRETS_KEYS[0], stored_row(site)["push_private_key"]) == private
    # Backwards, the columns hold the keys in clear again.
    migration.decrypt(django_apps, None)
    assert stored_row(site)["mollie_api_key"] == MOLLIE_KEY
    migration.encrypt(django_apps, None)
    again = Site.objects.get(pk=site.pk)
    assert (again.mollie_api_key, again.push_private_key) == (MOLLIE_KEY, private)


def test_keys_stored_in_clear_a_site_made_from_the_template_is_encrypted_too(db):
    from apps.tenants.services import site_create

    # Made in the test's transaction (schema included), rolled back after it.
    made = site_create(name="Keyed site", domain="keyed.localhost", mollie_api_key=MOLLIE_KEY)
    stored = stored_row(made)
    assert MOLLIE_KEY not in stored["row"]
    assert opens_with(settings.SECRETS_KEYS[0], stored["mollie_api_key"]) == MOLLIE_KEY
    assert Site.objects.get(pk=made.pk).mollie_api_key == MOLLIE_KEY
    # The site's own schema (a copy of the template) holds no copy of the sites' table.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = %s AND table_name = 'tenants_site'",
            [made.schema_name],
        )
        assert cursor.fetchone()[0] == 0


def test_keys_stored_in_clear_secrets_rotate_re_encrypts_with_the_first_key(keys):
    site, private = keys
    old, new = settings.SECRETS_KEYS[0], Fernet.generate_key().decode()
    with override_settings(SECRETS_KEYS=[new, old]):
        assert "re-encrypted" in rotate()
    stored = stored_row(site)
    assert opens_with(new, stored["mollie_api_key"]) == MOLLIE_KEY
    assert opens_with(new, stored["push_private_key"]) == private
    with pytest.raises(InvalidToken):
        opens_with(old, stored["mollie_api_key"])
    # The old key can go: the new one alone reads every site.
    with override_settings(SECRETS_KEYS=[new]):
        again = Site.objects.get(pk=site.pk)
        assert (again.mollie_api_key, again.push_private_key) == (MOLLIE_KEY, private)
        rotate()
        # A value stored in clear meanwhile is encrypted by the next rotation.
        write_in_clear(site, mollie_api_key=MOLLIE_KEY)
        rotate()
        assert opens_with(new, stored_row(site)["mollie_api_key"]) == MOLLIE_KEY


def test_keys_stored_in_clear_secrets_rotate_changes_nothing_when_a_key_is_missing(keys):
    site, _private = keys
    before = stored_row(site)
    # The key that encrypted the values was dropped before rotating.
    with (
        override_settings(SECRETS_KEYS=[Fernet.generate_key().decode()]),
        pytest.raises(CommandError, match=f"tenants.Site {site.pk}"),
    ):
        rotate()
    assert stored_row(site) == before


def test_keys_stored_in_clear_the_admin_stays_write_only(keys):
    site, private = keys
    # Every encrypted field of a site is one of the form's write-only keys.
    assert {field.name for field in encrypted_fields(Site)} == set(SiteAdminForm.SECRETS)
    client = staff_client(staff_member("operators"))
    body = client.get(f"/admin/tenants/site/{site.pk}/change/").content.decode()
    stored = stored_row(site)
    for secret in (MOLLIE_KEY, private, stored["mollie_api_key"], stored["push_private_key"]):
        assert secret not in body
    # The audit trail records that a key changed, never the key nor its token.
    values = snapshot(Site.objects.get(pk=site.pk))
    assert values["mollie_api_key"] == values["push_private_key"] == "(secret)"


def test_keys_stored_in_clear_a_key_entered_in_the_admin_is_stored_encrypted(site, rf):
    user = staff_member("operators")
    client = staff_client(user)
    try:
        response = post(client, site, change_data(rf, user, site, payment_gateway="mollie", mollie_api_key=MOLLIE_KEY))
        assert response.status_code == 302, response.content.decode()[:2000]
        stored = stored_row(site)
        assert MOLLIE_KEY not in stored["row"]
        assert opens_with(settings.SECRETS_KEYS[0], stored["mollie_api_key"]) == MOLLIE_KEY
    finally:
        Site.objects.filter(pk=site.pk).update(payment_gateway="sandbox", mollie_api_key="")
        site_cache_clear()


def test_keys_stored_in_clear_an_encrypted_field_validates_the_clear_text():
    field = EncryptedCharField(max_length=10, blank=True)
    assert field.get_internal_type() == "TextField"
    assert field.get_prep_value("") == ""
    with pytest.raises(ValidationError, match="at most 10"):
        field.clean("x" * 11, None)
    # A token this deployment's keys do not open is the field's error, not SecretUnreadable
    # (a server error in the admin).
    foreign = Fernet(Fernet.generate_key()).encrypt(b"live_key").decode()
    with pytest.raises(ValidationError, match="encrypted key this site cannot read") as raised:
        EncryptedCharField(blank=True).clean(foreign, None)
    assert raised.value.code == "unreadable"


def test_keys_stored_in_clear_a_foreign_token_entered_in_the_admin_is_the_fields_error(site, rf):
    user = staff_member("operators")
    client = staff_client(user)
    foreign = Fernet(Fernet.generate_key()).encrypt(b"live_k").decode()
    assert len(foreign) == 100  # the form's longest key: the model's check is the one that speaks
    response = post(client, site, change_data(rf, user, site, payment_gateway="mollie", mollie_api_key=foreign))
    assert response.status_code == 200
    assert "encrypted key this site cannot read" in response.content.decode()
    assert stored_row(site)["mollie_api_key"] == ""


def production(**variables) -> subprocess.CompletedProcess:
    env = production_environment(**variables)
    command = [sys.executable, "-c", "import django; django.setup(); print('started')"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_keys_stored_in_clear_production_refuses_to_start_without_the_keys():
    missing = production(SECRETS_KEYS=None)
    assert missing.returncode != 0 and "SECRETS_KEYS" in missing.stderr
    empty = production(SECRETS_KEYS="")
    assert empty.returncode != 0 and "SECRETS_KEYS" in empty.stderr
    malformed = production(SECRETS_KEYS=f"{Fernet.generate_key().decode()},not-a-key")
    assert malformed.returncode != 0 and "SECRETS_KEYS" in malformed.stderr
    started = production(SECRETS_KEYS=f"{Fernet.generate_key().decode()},{Fernet.generate_key().decode()}")
    assert started.returncode == 0 and "started" in started.stdout, started.stderr


def test_a_serialized_copy_holds_the_keys_encrypted_and_loads_them_back(keys):
    """`dumpdata` (and every serializer) writes the token, never the clear key; `loaddata`
    reads the token back, without encrypting it twice."""
    from django.core import serializers

    site, private = keys
    dumped = io.StringIO()
    call_command("dumpdata", "tenants.site", f"--pks={site.pk}", stdout=dumped)
    text = dumped.getvalue()
    assert MOLLIE_KEY not in text and private not in text
    (copy,) = serializers.deserialize("json", text)
    assert copy.object.mollie_api_key == MOLLIE_KEY
    assert copy.object.push_private_key == private
    Site.objects.filter(pk=site.pk).update(mollie_api_key="", push_private_key="")
    copy.save()
    site.refresh_from_db()
    assert (site.mollie_api_key, site.push_private_key) == (MOLLIE_KEY, private)
    assert stored_row(site)["mollie_api_key"].startswith("gAAAAA")
