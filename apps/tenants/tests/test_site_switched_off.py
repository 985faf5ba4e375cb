"""Issue 15 (operators): a site can be switched off. Its hosts answer a clear "site
unavailable" page (503, JSON under /api/), its members' data is kept, and switching it
on again brings everything back."""

import pytest

from apps.accounts.models import User
from apps.profiles.tests.helpers_view import member
from apps.tenants.models import Site
from conftest import on_site

pytestmark = pytest.mark.django_db


@pytest.fixture
def switched_off(site):
    Site.objects.filter(pk=site.pk).update(is_active=False)
    from apps.tenants.middleware import site_cache_clear

    site_cache_clear()
    yield site
    Site.objects.filter(pk=site.pk).update(is_active=True)
    site_cache_clear()


def test_the_hosts_answer_site_unavailable_and_keep_the_members(site, client_for):
    anna = member(site, "Anna")
    assert client_for(site).get("/").status_code == 200  # the site is cached now
    site_obj = Site.objects.get(pk=site.pk)
    site_obj.is_active = False
    site_obj.save()
    client = client_for(site)
    page = client.get("/")
    assert page.status_code == 503 and page["Retry-After"] == "3600"
    body = page.content.decode()
    assert f"{site.name} is not available at the moment." in body and 'data-testid="site-unavailable"' in body
    assert "<script" not in body and page["Content-Security-Policy"].startswith("default-src 'none'")
    api = client.get("/api/settings.php")
    assert api.status_code == 503 and api.json()["error"]["code"] == "site_unavailable"
    with on_site(site):
        assert User.objects.filter(pk=anna.user_id).exists()
    site_obj.is_active = True
    site_obj.save()
    assert client.get("/").status_code == 200


def test_in_the_sites_language(switched_off, gay_site, client_for):
    Site.objects.filter(pk=switched_off.pk).update(domain_language="fr")
    from apps.tenants.middleware import site_cache_clear

    site_cache_clear()
    from django.utils import translation
    from django.utils.translation import gettext

    with translation.override("fr"):
        expected = gettext("%(site)s is not available at the moment.") % {"site": switched_off.name}
    assert expected != f"{switched_off.name} is not available at the moment."
    assert expected.replace("'", "&#x27;") in client_for(switched_off).get("/").content.decode()
    assert client_for(gay_site).get("/").status_code == 200  # the other sites go on
