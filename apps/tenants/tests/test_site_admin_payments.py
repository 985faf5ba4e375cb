"""Issue 15 (operators): the site admin edits the payment gateway, the Mollie key and
direct debit; the Mollie key and the push private key are write-only (never shown back,
empty keeps, "remove" clears); a new site starts with default credit packages."""

import pytest
from django import forms
from django.contrib import admin

from apps.payments.models import CreditPackage
from apps.payments.packages import DEFAULT_PACKAGES, packages_default_ensure
from apps.tenants.admin import SiteAdmin
from apps.tenants.models import Site
from apps.tenants.services import site_create
from tests.staff import staff_client, staff_member

pytestmark = pytest.mark.django_db

KEY = "test_" + "k" * 30
OTHER_KEY = "live_" + "z" * 30


@pytest.fixture
def operator(django_user_model):
    user = staff_member("operators", "operator")
    return user, staff_client(user)


def change_data(rf, user, site: Site, **changes) -> dict:
    """The site's change form as the browser posts it (inlines unchanged)."""
    request = rf.get(f"/admin/tenants/site/{site.pk}/change/")
    request.user = user
    model_admin = SiteAdmin(Site, admin.site)
    form = model_admin.get_form(request, site)(instance=site)
    data = {}
    for name, field in form.fields.items():
        value = form[name].value()
        if isinstance(value, list):
            data[name] = ",".join(value) if field.__class__.__name__ == "SimpleArrayField" else value
        elif isinstance(value, bool):
            if value:
                data[name] = "on"
        elif value is not None:
            data[name] = value
    for inline in model_admin.get_inline_instances(request, site):
        formset = inline.get_formset(request, site)(instance=site)
        management = formset.management_form
        data.update({f"{formset.prefix}-{key}": management[key].value() for key in management.fields})
        for index, item in enumerate(formset.forms):
            for name, field in item.fields.items():
                if isinstance(field, forms.FileField):  # no upload: the stored file stays
                    continue
                value = item[name].value()
                if isinstance(value, bool):
                    if value:
                        data[f"{formset.prefix}-{index}-{name}"] = "on"
                elif value is not None:
                    data[f"{formset.prefix}-{index}-{name}"] = value
    # A browser posts the write-only keys empty (the page never holds them).
    data.update({"mollie_api_key": "", "push_private_key": "", "twilio_auth_token": ""})
    data.update(changes)
    return data


def post(client, site, data):
    return client.post(f"/admin/tenants/site/{site.pk}/change/", data)


def test_the_payment_settings_are_on_the_page_and_the_key_is_never_shown(operator, site, rf):
    _user, client = operator
    site.payment_gateway, site.mollie_api_key = "mollie", KEY
    site.save()
    body = client.get(f"/admin/tenants/site/{site.pk}/change/").content.decode()
    for field in ("payment_gateway", "mollie_api_key", "direct_debit_enabled", "mollie_api_key_remove"):
        assert f'name="{field}"' in body
    assert KEY not in body and "A key is stored; it is never shown." in body


def test_empty_keeps_a_new_key_replaces_and_remove_clears(operator, site, rf):
    user, client = operator
    site.payment_gateway, site.mollie_api_key = "mollie", KEY
    site.save()
    response = post(client, site, change_data(rf, user, site, mollie_api_key="", direct_debit_enabled=""))
    assert response.status_code == 302, response.content.decode()[:2000]
    site.refresh_from_db()
    assert site.mollie_api_key == KEY and site.direct_debit_enabled is False
    post(client, site, change_data(rf, user, site, mollie_api_key=OTHER_KEY))
    site.refresh_from_db()
    assert site.mollie_api_key == OTHER_KEY
    post(client, site, change_data(rf, user, site, payment_gateway="sandbox", mollie_api_key_remove="on"))
    site.refresh_from_db()
    assert site.mollie_api_key == "" and site.payment_gateway == "sandbox"


def test_mollie_needs_a_valid_key(operator, site, rf):
    user, client = operator
    site.mollie_api_key = ""
    site.save()
    response = post(client, site, change_data(rf, user, site, payment_gateway="mollie", mollie_api_key="nonsense"))
    assert response.status_code == 200
    assert "Enter the site&#x27;s Mollie API key" in response.content.decode()
    site.refresh_from_db()
    assert site.payment_gateway == "sandbox"


def test_the_push_private_key_is_write_only_too(operator, site, rf):
    from apps.common.vapid import vapid_keys_generate

    user, client = operator
    private, public = vapid_keys_generate()
    site.push_private_key, site.push_public_key = private, public
    site.save()
    body = client.get(f"/admin/tenants/site/{site.pk}/change/").content.decode()
    assert private not in body and public in body
    response = post(client, site, change_data(rf, user, site, push_private_key="", index_title="Kept key"))
    assert response.status_code == 302, response.content.decode()[:2000]
    site.refresh_from_db()
    assert site.push_private_key == private and site.index_title == "Kept key"
    post(client, site, change_data(rf, user, site, push_public_key="", push_private_key_remove="on"))
    site.refresh_from_db()
    assert site.push_private_key == "" and site.push_public_key == ""


def test_a_new_site_gets_the_default_packages_it_can_change():
    site = site_create(name="Packages", domain="packages.localhost", countries=["NL"])
    packages = list(CreditPackage.objects.filter(site=site).order_by("position").prefetch_related("prices"))
    assert [(p.credits, p.highlighted) for p in packages] == [(c, h) for c, _prices, h in DEFAULT_PACKAGES]
    assert {price.currency: price.amount for price in packages[1].prices.all()} == DEFAULT_PACKAGES[1][1]
    CreditPackage.objects.filter(site=site).exclude(pk=packages[0].pk).delete()
    assert packages_default_ensure(site) == 0  # a site with packages keeps its own


def test_the_twilio_auth_token_is_write_only_and_encrypted(operator, site, rf, settings):
    from django.db import connection

    settings.SMS_STATUS_BASE_URL = "https://operators.example.com"
    user, client = operator
    token, sid = "c" * 32, "AC" + "a" * 32
    twilio = {"sms_provider": "twilio", "twilio_account_sid": sid, "sms_sender": "Dating"}
    response = post(client, site, change_data(rf, user, site, twilio_auth_token=token, **twilio))
    assert response.status_code == 302, response.content.decode()[:2000]
    site.refresh_from_db()
    assert (site.sms_provider, site.twilio_account_sid, site.twilio_auth_token) == ("twilio", sid, token)
    with connection.cursor() as cursor:
        cursor.execute("SELECT twilio_auth_token FROM tenants_site WHERE id = %s", [site.pk])
        assert token not in cursor.fetchone()[0]

    # The audit trail records that it changed, never the token.
    from apps.support.models import AuditEntry

    entry = AuditEntry.objects.filter(action="tenants.site.change").order_by("-pk").first()
    assert entry is not None and token not in str(entry.before) + str(entry.after)

    body = client.get(f"/admin/tenants/site/{site.pk}/change/").content.decode()
    assert 'name="twilio_auth_token"' in body and token not in body
    assert f"https://operators.example.com/hooks/sms/twilio/{site.schema_name}" in body
    # Empty keeps the token; removing it while Twilio sends is refused; with the default it clears.
    post(client, site, change_data(rf, user, site, sms_sender="Other"))
    site.refresh_from_db()
    assert site.twilio_auth_token == token and site.sms_sender == "Other"
    response = post(client, site, change_data(rf, user, site, twilio_auth_token_remove="on"))
    assert response.status_code == 200 and "Enter the site&#x27;s Twilio auth token" in response.content.decode()
    post(client, site, change_data(rf, user, site, sms_provider="", twilio_auth_token_remove="on"))
    site.refresh_from_db()
    assert site.twilio_auth_token == "" and site.sms_provider == ""
