"""Issue 15 (operators): every setting of spec §3 is editable in the site admin and
validated with a clear error (never a 5xx); lists with fixed choices are chosen; the
regions a site offers reach profiles, signup and search; the theme preview shows the
contrast of the text on the primary colour."""

import pytest
from django.test import Client

from apps.common.vapid import vapid_keys_generate
from apps.tenants.models import Company, Domain, Site
from apps.tenants.selectors import region_data
from apps.tenants.services import site_create
from apps.tenants.tests.test_site_admin_payments import change_data
from apps.tenants.theme import contrast_ratio
from tests.staff import staff_client, staff_member

pytestmark = pytest.mark.django_db

# Spec §3 "Settings (from the server)" -> the site admin's form field (or inline) that
# sets it. geoip_country and geoip_selected_country come from the visitor's request.
SPEC_SETTINGS = {
    "countries": 'name="countries"',
    "name": 'name="name"',
    "domain": 'name="domains-0-domain"',
    "domain_language": 'name="domain_language"',
    "index_title": 'name="index_title"',
    "description": 'name="description"',
    "cdn_prefix": 'name="cdn_prefix"',
    "niche": 'name="niche"',
    "signups": 'name="signups"',
    "logged_out_search": 'name="logged_out_search"',
    "logged_out_search_trafficsource": 'name="logged_out_search_trafficsource"',
    "push public key": 'name="push_public_key"',
    "minimum_message_costs": 'name="minimum_message_costs-TOTAL_FORMS"',
    "message_credits": 'name="message_credits"',
    "photo_credits": 'name="photo_credits"',
    "gift_credits": 'name="gift_credits"',
    "signup_credits": 'name="signup_credits"',
    "message_length": 'name="message_length"',
    "support_email": 'name="support_email"',
    "support_phone": 'name="support_phone"',
    "fictional_icon": 'name="fictional_icon"',
    "fictional_warning": 'name="fictional_warning"',
    "fictional_singular": 'name="fictional_singular"',
    "fictional_plural": 'name="fictional_plural"',
    "enable_site_entry_popup": 'name="enable_site_entry_popup"',
    "visible_profile_fields": 'name="visible_profile_fields"',
    "visible_profile_notes": 'name="visible_profile_notes"',
    "search_fields": 'name="search_fields"',
    "refund_days": 'name="refund_days"',
    "member_resell": 'name="member_resell"',
    "company_id": 'name="company"',
    "mail_name": 'name="mail_name"',
    "interests": 'name="interests"',
    "region_data": 'name="regions"',
}
COMPANY_INFO = (
    "name",
    "address",
    "kvk",
    "city",
    "country",
    "tradenames",
    "vat_numbers",
    "support_phone",
    "delete_discount",
    "added",
)


@pytest.fixture
def operator():
    user = staff_member("operators")
    return user, staff_client(user)


def post(client: Client, site: Site, data: dict):
    return client.post(f"/admin/tenants/site/{site.pk}/change/", data)


def errors_of(response) -> str:
    assert response.status_code == 200, response.status_code
    body = response.content.decode()
    assert "errornote" in body
    return body


def test_every_spec_setting_is_on_the_site_form(operator, site):
    _user, client = operator
    body = client.get(f"/admin/tenants/site/{site.pk}/change/").content.decode()
    missing = [setting for setting, marker in SPEC_SETTINGS.items() if marker not in body]
    assert not missing
    add = client.get("/admin/tenants/site/add/").content.decode()
    assert not [setting for setting, marker in SPEC_SETTINGS.items() if marker not in add]


def test_every_company_field_is_on_the_company_form(operator):
    _user, client = operator
    company = Company.objects.create(name="Acme", address="Street 1", city="Utrecht", country="NL")
    body = client.get(f"/admin/tenants/company/{company.pk}/change/").content.decode()
    assert not [name for name in COMPANY_INFO if name != "added" and f'name="{name}"' not in body]
    assert 'name="added_0"' in body or 'name="added"' in body


def test_every_setting_saves_from_the_admin(operator, site, rf):
    user, client = operator
    private, public = vapid_keys_generate()
    changes = {
        "index_title": "Meet people",
        "description": "A description",
        "cdn_prefix": "https://cdn.example.com/heartline",
        "signups": "with_trafficsource",
        "message_credits": "2",
        "photo_credits": "4",
        "gift_credits": "6",
        "signup_credits": "20",
        "message_length": "500",
        "support_phone": "+44 20 7946 0000",
        "refund_days": "30",
        "visible_profile_fields": ["about_me", "age", "city"],
        "search_fields": ["tattoos", "body_type"],
        "regions": ["GB-SCT", "GB-WLS", "FR-IDF"],
        "interests": "Hiking, Chess",
        "theme_primary": "#224488",
        "push_public_key": public,
        "push_private_key": private,
    }
    response = post(client, site, change_data(rf, user, site, **changes))
    assert response.status_code == 302, response.content.decode()[:3000]
    site.refresh_from_db()
    assert site.cdn_prefix == "https://cdn.example.com/heartline" and site.signups == "with_trafficsource"
    assert (site.message_credits, site.photo_credits, site.gift_credits, site.signup_credits) == (2, 4, 6, 20)
    # Fixed choices are stored in the choices' order.
    assert site.visible_profile_fields == ["age", "city", "about_me"]
    assert site.search_fields == ["body_type", "tattoos"]
    assert site.regions == ["GB-SCT", "GB-WLS", "FR-IDF"]
    assert site.interests == ["Hiking", "Chess"]
    assert (site.push_public_key, site.push_private_key) == (public, private)


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"countries": ["XX"]}, "countries", "Select a valid choice"),
        ({"languages": "en,xx"}, "languages", "Select a valid choice"),
        ({"languages": "en,en"}, "languages", "Each language may be listed once."),
        ({"languages": "fr", "domain_language": "en"}, "domain_language", "The domain language must be one of"),
        ({"theme_primary": "blue"}, "theme_primary", "Enter a colour as #rrggbb."),
        ({"theme_secondary": "#12345"}, "theme_secondary", "Enter a colour as #rrggbb."),
        ({"visible_profile_fields": ["age", "shoe_size"]}, "visible_profile_fields", "Select a valid choice"),
        ({"search_fields": ["about_me"]}, "search_fields", "Select a valid choice"),
        ({"regions": ["DE-BY"]}, "regions", "Select a valid choice"),
        ({"message_credits": "5000"}, "message_credits", "less than or equal to 1000"),
        ({"refund_days": "400"}, "refund_days", "less than or equal to 365"),
        ({"message_length": "5"}, "message_length", "greater than or equal to 10"),
        ({"min_age": "16"}, "min_age", "greater than or equal to 18"),
        ({"signup_credits": "-1"}, "signup_credits", "greater than or equal to 0"),
        ({"cdn_prefix": "http://cdn.example.com"}, "cdn_prefix", "Enter an https:// address"),
        ({"cdn_prefix": "/static"}, "cdn_prefix", "Enter an https:// address"),
        ({"cdn_prefix": "https://"}, "cdn_prefix", "Enter an https:// address"),
        ({"support_phone": "call us"}, "support_phone", "Enter a phone number"),
        ({"support_email": "nope"}, "support_email", "Enter a valid email address."),
        ({"name": "Bad\x00name"}, "name", "Null characters are not allowed."),
        ({"index_title": "Bell\x07"}, "index_title", "one line of text"),
        ({"mail_name": "Line\nbreak"}, "mail_name", "one line of text"),
        ({"interests": "Chess, chess"}, "interests", "Each interest may be listed once."),
        ({"push_public_key": "not-a-key"}, "push_public_key", "Enter the public key as web push expects it"),
        ({"signups": "some"}, "signups", "Select a valid choice"),
        ({"niche": "9"}, "niche", "Select a valid choice"),
    ],
)
def test_bad_settings_get_a_clear_error_and_nothing_is_saved(operator, site, rf, changes, field, message):
    user, client = operator
    before = Site.objects.values().get(pk=site.pk)
    body = errors_of(post(client, site, change_data(rf, user, site, **changes)))
    assert message in body.replace("&#x27;", "'").replace("&quot;", '"'), field
    assert Site.objects.values().get(pk=site.pk) == before


def test_a_push_key_pair_must_belong_together(operator, site, rf):
    user, client = operator
    _private, public = vapid_keys_generate()
    other_private, _other_public = vapid_keys_generate()
    body = errors_of(post(client, site, change_data(rf, user, site, push_public_key=public)))
    assert "needs both halves" in body
    body = errors_of(
        post(client, site, change_data(rf, user, site, push_public_key=public, push_private_key=other_private))
    )
    assert "does not belong to the private key" in body


@pytest.mark.parametrize(
    "private",
    [
        "A" * 43,  # zero: no key of the curve
        "_" * 43,  # above the curve's order
        "not-a-key",
    ],
)
def test_a_push_private_key_the_curve_refuses_gets_its_own_error(operator, site, rf, private):
    user, client = operator
    _private, public = vapid_keys_generate()
    before = Site.objects.values().get(pk=site.pk)
    body = errors_of(post(client, site, change_data(rf, user, site, push_public_key=public, push_private_key=private)))
    assert "Enter the private key as web push expects it" in body
    assert "does not belong to the private key" not in body  # only the key's own error
    assert Site.objects.values().get(pk=site.pk) == before


def test_a_domain_is_a_lower_case_host_name(operator, site, rf):
    user, client = operator
    data = change_data(rf, user, site)
    data["domains-0-domain"] = "http://Bad Host:8000"
    assert "Enter a host name" in errors_of(post(client, site, data))
    data["domains-0-domain"] = "localhost"  # unchanged
    data["domains-1-domain"], data["domains-1-is_primary"] = "WWW.Heartline.Example", ""
    data["domains-TOTAL_FORMS"] = str(max(2, int(data["domains-TOTAL_FORMS"])))
    response = post(client, site, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Domain.objects.filter(tenant=site, domain="www.heartline.example").exists()


def test_company_fields_are_validated(operator):
    _user, client = operator
    company = Company.objects.create(name="Acme", address="Street 1", city="Utrecht", country="NL")
    data = {
        "name": "Acme",
        "address": "Street 1",
        "kvk": "12345678",
        "city": "Utrecht",
        "country": "NL",
        "tradenames": "Acme Dating",
        "vat_numbers": "NL123456789B01, 123",
        "support_phone": "+31 20 123 4567",
        "delete_discount": "95",
        "added_0": "2024-01-01",
        "added_1": "10:00:00",
    }
    response = client.post(f"/admin/tenants/company/{company.pk}/change/", data)
    body = errors_of(response)
    assert "Not a VAT number: 123." in body and "less than or equal to 90" in body
    data.update({"vat_numbers": "NL123456789B01", "delete_discount": "50", "country": "ZZ"})
    assert "Select a valid choice" in errors_of(client.post(f"/admin/tenants/company/{company.pk}/change/", data))
    data["country"] = "NL"
    assert client.post(f"/admin/tenants/company/{company.pk}/change/", data).status_code == 302
    company.refresh_from_db()
    assert company.vat_numbers == ["NL123456789B01"] and company.delete_discount == 50


# --- Regions ----------------------------------------------------------------------


def test_the_regions_offered_follow_the_choice(site, client_for):
    site.regions = ["GB-SCT", "GB-WLS"]
    site.save()
    regions = region_data(site)
    assert [region["code"] for region in regions["GB"]] == ["GB-SCT", "GB-WLS"]
    assert len(regions["FR"]) > 10  # none of France's chosen: all of them
    settings = client_for(site).get("/api/settings.php").json()
    assert [region["code"] for region in settings["region_data"]["GB"]] == ["GB-SCT", "GB-WLS"]
    api = client_for(site).get("/api/regions.php", {"country": "GB"})
    assert [region["code"] for region in api.json()["regions"]["GB"]] == ["GB-SCT", "GB-WLS"]


def test_the_region_choices_are_the_sites_countries_regions(operator, site):
    _user, client = operator
    body = client.get(f"/admin/tenants/site/{site.pk}/change/").content.decode()
    assert 'value="GB-SCT"' in body and 'value="FR-IDF"' in body and 'value="DE-BY"' not in body


# --- Theme preview ------------------------------------------------------------------


def test_the_theme_preview_shows_the_contrast(operator, site):
    _user, client = operator
    body = client.get(f"/admin/tenants/site/{site.pk}/change/").content.decode()
    assert 'data-testid="theme-preview"' in body and "tenants/admin/theme_preview.js" in body
    ratio = contrast_ratio(site.theme_primary, "#ffffff")
    assert f"{int(ratio * 100) / 100:.2f}:1" in body
    assert ratio >= 4.5 and 'data-preview="warning" role="status" hidden' in body
    assert " style=" not in body.split('data-testid="theme-preview"')[1].split("</fieldset>")[0]


def test_a_light_primary_colour_is_saved_with_a_warning(operator, site, rf):
    user, client = operator
    response = post(client, site, change_data(rf, user, site, theme_primary="#ffcc00"))
    assert response.status_code == 302
    follow = client.get(response["Location"]).content.decode()
    assert "contrast below 4.5:1" in follow
    body = client.get(f"/admin/tenants/site/{site.pk}/change/").content.decode()
    assert 'data-preview="warning" role="status">' in body


def test_contrast_ratio_matches_wcag():
    assert round(contrast_ratio("#000000", "#ffffff"), 2) == 21.0
    assert round(contrast_ratio("#ffffff", "#ffffff"), 2) == 1.0
    assert round(contrast_ratio("#5566e8", "#ffffff"), 2) == 4.72
    assert contrast_ratio("#777777", "#ffffff") < 4.5 < contrast_ratio("#767676", "#ffffff")


# --- A new site -----------------------------------------------------------------------


def test_a_new_site_validates_like_the_admin():
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as error:
        site_create(name="X", domain="x.localhost", countries=["GB"], regions=["NL-NH"])
    assert "regions" in error.value.message_dict


def test_profile_notes_and_the_fictional_word_say_where_they_show(operator, site):
    _user, client = operator
    html = client.get(f"/admin/tenants/site/{site.pk}/change/").content.decode()
    assert "Notes under a profile's facts on its page and on cards" in html
    assert "Labels a fictional profile, beside the icon, on its page and on cards." in html
    assert "What profile pages and every profile card" in html
