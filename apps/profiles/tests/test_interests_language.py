"""Interests are shown in the page's language: the default ones are in the catalogues, an
operator's own is shown as typed; profiles and searches keep the site's words."""

import pytest
from django.conf import settings

from apps.profiles.models import Profile
from apps.profiles.tests.helpers_view import logged_in, member, photos_add
from apps.profiles.tests.test_search import island_props, set_site
from conftest import on_site

pytestmark = pytest.mark.django_db


def _french(client):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    return client


def test_interests_shown_in_the_pages_language(site, client_for):
    set_site(site, interests=["Travel", "Cooking", "Knitting"], search_fields=["interests"])
    anna = member(site, "Anna", interests=["Travel", "Knitting"])
    photos_add(site, anna, 1)
    ben = member(site, "Ben", gender="male", interests=["Cooking"])
    client = _french(logged_in(site, client_for, ben))

    # Anna's profile: the default interest translated, the operator's own as typed.
    html = client.get(f"/members/{anna.pk}").content.decode()
    assert ">Voyages<" in html and ">Knitting<" in html and ">Travel<" not in html

    # Ben's own form: French labels, the site's words as the values sent back.
    html = client.get("/profile").content.decode()
    assert 'value="Cooking"' in html and ">Cuisine</label>" in html

    # The search's choices: the site's words as values, French labels.
    props = island_props(client.get("/members").content.decode(), "Search")
    [field] = [field for field in props["options"]["fields"] if field["name"] == "interests"]
    assert {"value": "Travel", "label": "Voyages"} in field["options"]

    # Saving keeps the site's words.
    with on_site(site):
        assert Profile.objects.get(pk=anna.pk).interests == ["Travel", "Knitting"]
