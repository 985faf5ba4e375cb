"""The live region every page has for a push shown in the page (static_src/lib/pushNotice.ts):
`{% push_notices %}` in the base layout, with its strings in the page's language."""

import pytest
from django.template import Context, Template
from django.utils import translation

pytestmark = pytest.mark.django_db


def render() -> str:
    return Template("{% load notification_alerts %}{% push_notices %}").render(Context({}))


def test_the_region_is_a_polite_live_region_with_the_strings_of_the_language():
    with translation.override("en"):
        html = render()
    assert 'role="status"' in html and 'aria-live="polite"' in html
    assert "data-push-notices" in html
    assert 'aria-label="Notifications"' in html
    assert 'data-open-text="Open"' in html and 'data-close-text="Close"' in html
    with translation.override("de"):
        html = render()
    assert 'aria-label="Benachrichtigungen"' in html and 'data-close-text="Schließen"' in html
    # Empty: the page's script adds the notice; no inline style (CSP).
    assert "style=" not in html
    assert html.strip().endswith("></div>")


def test_every_page_has_it_once(site, client_for):
    from apps.profiles.tests.helpers_view import logged_in, member

    client = logged_in(site, client_for, member(site, "Noticed"))
    for url in ("/members", "/chats"):
        assert client.get(url).content.decode().count("data-push-notices") == 1, url
    assert client_for(site).get("/").content.decode().count("data-push-notices") == 1
