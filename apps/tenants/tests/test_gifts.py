"""The chat's gift catalogue per site: new sites start with the default one, and the
operators keep it in the admin (inline on the site, and a gift list with a site filter)."""

from pathlib import Path

import pytest
from django.contrib import admin

from apps.tenants.admin import SiteAdmin
from apps.tenants.models import Gift, Site
from apps.tenants.services import DEFAULT_GIFTS, gifts_default_ensure, site_create
from tests.staff import staff_client, staff_member

pytestmark = pytest.mark.django_db


def _catalogue(site) -> list[tuple[str, str, int, bool]]:
    return list(
        Gift.objects.filter(site=site).order_by("position").values_list("name", "emoji", "position", "is_active")
    )


def _default() -> list[tuple[str, str, int, bool]]:
    return [(name, emoji, position, True) for position, (name, emoji) in enumerate(DEFAULT_GIFTS)]


@pytest.fixture
def operator(django_user_model):
    user = staff_member("operators", "operator")
    return user, staff_client(user)


def _site_add_data(rf, user, *, name: str, domain: str, gifts: list[dict]) -> dict:
    """The admin's "add site" form as the browser posts it, with `gifts` inline."""
    request = rf.get("/admin/tenants/site/add/")
    request.user = user
    form = SiteAdmin(Site, admin.site).get_form(request)()
    data = {}
    for field_name, field in form.fields.items():
        value = form[field_name].value()
        if isinstance(value, list):
            data[field_name] = ",".join(value) if field.__class__.__name__ == "SimpleArrayField" else value
        elif value is not None:
            data[field_name] = value
    data.update({"name": name, "schema_name": "", "languages": "en", "domain_language": "en", "countries": ["GB"]})
    for prefix, rows in (
        ("domains", [{"domain": domain, "is_primary": "on"}]),
        ("minimum_message_costs", []),
        ("gifts", gifts),
    ):
        data.update(
            {
                f"{prefix}-TOTAL_FORMS": len(rows),
                f"{prefix}-INITIAL_FORMS": 0,
                f"{prefix}-MIN_NUM_FORMS": 0,
                f"{prefix}-MAX_NUM_FORMS": 1000,
            }
        )
        for index, row in enumerate(rows):
            data.update({f"{prefix}-{index}-{key}": value for key, value in row.items()})
    return data


def test_site_create_gives_a_new_site_the_default_gifts():
    site = site_create(name="Gift test", domain="gifts.localhost", countries=["NL"])
    assert _catalogue(site) == _default()
    # The chat offers them at once.
    from apps.chat.selectors import gifts_offered

    assert [gift["name"] for gift in gifts_offered(site=site)] == [name for name, _emoji in DEFAULT_GIFTS]


def test_default_gifts_are_pictures_named_in_the_readers_language(site):
    """Each default gift has its own SVG file (no emoji font needed), offered by the chat's
    catalogue and in gift messages; the names follow the reader's language; an operator's
    gift without a picture keeps its emoji."""
    from django.contrib.staticfiles import finders
    from django.utils import translation

    from apps.chat.models import Message, MessageKind
    from apps.chat.payloads import message_payload
    from apps.chat.selectors import gifts_offered

    Gift.objects.filter(site=site).delete()
    gifts_default_ensure(site)
    Gift.objects.create(site=site, name="Balloon", emoji="🎈", position=99)
    offered = gifts_offered(site=site)
    pictures = [gift["image"] for gift in offered]
    assert len(set(pictures[:-1])) == len(DEFAULT_GIFTS)
    for picture in pictures[:-1]:
        assert picture.startswith("/static/gifts/") and picture.endswith(".svg")
        found = finders.find(picture.removeprefix("/static/"))
        assert found and Path(found).read_text().startswith("<svg")
    assert offered[-1] == {"id": offered[-1]["id"], "name": "Balloon", "emoji": "🎈", "image": None}

    message = Message(kind=MessageKind.GIFT, gift_id=1, gift_name="Rose", gift_emoji="🌹", gift_image="")
    assert message_payload(message, viewer_id=0)["gift"]["image"] == pictures[0]
    heart = Message(kind=MessageKind.GIFT, gift_id=2, gift_name="Heart", gift_emoji="❤", gift_image="")
    assert message_payload(heart, viewer_id=0)["gift"]["image"] == pictures[1]  # with or without U+FE0F

    with translation.override("fr"):
        french = [gift["name"] for gift in gifts_offered(site=site)]
    english = [name for name, _emoji in DEFAULT_GIFTS]
    # Translated where the French catalogue has the name, never the operator's own name.
    assert french[-1] == "Balloon"
    with translation.override("fr"):
        assert french[:-1] == [translation.gettext(name) for name in english]


def test_a_site_with_gifts_keeps_its_own():
    site = site_create(name="Own gifts", domain="own-gifts.localhost", countries=["NL"])
    Gift.objects.filter(site=site).exclude(name="Rose").delete()
    assert gifts_default_ensure(site) == 0
    assert [name for name, *_rest in _catalogue(site)] == ["Rose"]
    Gift.objects.filter(site=site).delete()
    assert gifts_default_ensure(site) == len(DEFAULT_GIFTS)


def test_a_site_added_in_the_admin_gets_the_default_gifts(operator, rf):
    user, client = operator
    data = _site_add_data(rf, user, name="Admin gifts", domain="admin-gifts.localhost", gifts=[])
    response = client.post("/admin/tenants/site/add/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    site = Site.objects.get(domains__domain="admin-gifts.localhost")
    assert _catalogue(site) == _default()


def test_gifts_given_while_adding_a_site_replace_the_default(operator, rf):
    user, client = operator
    gifts = [{"position": 0, "name": "Sunflower", "emoji": "🌻", "is_active": "on"}]
    data = _site_add_data(rf, user, name="Admin own gifts", domain="admin-own.localhost", gifts=gifts)
    response = client.post("/admin/tenants/site/add/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    site = Site.objects.get(domains__domain="admin-own.localhost")
    assert _catalogue(site) == [("Sunflower", "🌻", 0, True)]


def test_the_site_page_shows_its_gifts_inline(operator, site):
    _user, client = operator
    page = client.get(f"/admin/tenants/site/{site.pk}/change/")
    assert page.status_code == 200
    body = page.content.decode()
    assert 'name="gifts-TOTAL_FORMS"' in body
    first = Gift.objects.filter(site=site).order_by("position").first()
    assert f'value="{first.name}"' in body


def test_the_gift_list_is_filtered_by_site_and_a_gift_is_edited(operator, site, gay_site):
    _user, client = operator
    page = client.get("/admin/tenants/gift/", {"site__id__exact": gay_site.pk})
    assert page.status_code == 200
    shown = {gift.pk for gift in page.context["cl"].result_list}
    assert shown == set(Gift.objects.filter(site=gay_site).values_list("pk", flat=True)) and shown
    gift = Gift.objects.filter(site=site).order_by("position").first()
    response = client.post(
        f"/admin/tenants/gift/{gift.pk}/change/",
        {"site": site.pk, "name": "Red rose", "emoji": "🌹", "position": 3, "is_active": ""},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    gift.refresh_from_db()
    assert (gift.name, gift.position, gift.is_active) == ("Red rose", 3, False)


def test_a_gift_needs_an_emoji_or_a_picture(operator, site):
    _user, client = operator
    response = client.post("/admin/tenants/gift/add/", {"site": site.pk, "name": "Nothing", "position": 0})
    assert response.status_code == 200
    assert "Give the gift an emoji or a picture." in response.content.decode()
    assert not Gift.objects.filter(name="Nothing").exists()
