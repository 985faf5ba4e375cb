"""The {token} route of spec §2: an operator's page of one site at /<token>, in the
visitor's language, rendered safely; never shadowing another route; and its admin."""

import pytest
from django.urls import reverse

from apps.landers.markup import page_summary, render_page_body
from apps.landers.models import SitePage
from tests.staff import ADMIN_HOST, staff_client, staff_member

pytestmark = pytest.mark.django_db


def page(site, token="summer-event", language="en", **fields) -> SitePage:
    values = {"title": "Summer event", "body": "Join us **this** summer.", "published": True, **fields}
    return SitePage.objects.create(site=site, token=token, language=language, **values)


class TestRoute:
    def test_a_published_page_in_the_lander_of_the_site(self, site, client_for):
        page(site)
        response = client_for(site).get("/summer-event")
        assert response.status_code == 200
        html = response.content.decode()
        assert "<h1" in html and "Summer event" in html
        assert "Join us <strong>this</strong> summer." in html
        assert '<meta name="description" content="Join us this summer.">' in html
        assert response.resolver_match.url_name == "site-page"

    def test_unknown_unpublished_and_other_sites_pages_are_the_normal_404(self, two_sites, client_for):
        general, gay = two_sites
        page(general, published=False)
        page(gay, token="gay-only")
        client = client_for(general)
        for path in ("/summer-event", "/gay-only", "/no-such-page", "/Summer-event", "/-x", "/a..b"):
            response = client.get(path)
            assert response.status_code == 404, path
            html = response.content.decode()
            assert "This page could not be found" in html and 'data-route=""' in html
        assert client.get("/" + "a" * 61).status_code == 404
        assert client.get("/a%00").status_code == 400

    def test_the_visitors_language_then_the_sites(self, site, client_for, settings):
        page(site, title="English title")
        page(site, language="fr", title="Titre français")
        client = client_for(site)
        assert "English title" in client.get("/summer-event").content.decode()
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
        assert "Titre français" in client.get("/summer-event").content.decode()
        SitePage.objects.filter(language="fr").delete()
        assert "English title" in client.get("/summer-event").content.decode()

    def test_it_never_shadows_a_route(self, site, client_for):
        page(site, token="signup", title="Shadow")
        page(site, token="members", title="Shadow")
        client = client_for(site)
        assert "Shadow" not in client.get("/signup").content.decode()
        assert "Shadow" not in client.get("/members").content.decode()
        assert client.get("/healthz").status_code == 200

    def test_no_html_from_the_operator_reaches_the_page(self, site, client_for):
        body = '<script>alert(1)</script>\n\n[x](javascript:alert(1)) [ok](https://example.com/a?b=1&c=2) "q"'
        page(site, body=body, title="<b>T</b>")
        html = client_for(site).get("/summer-event").content.decode()
        assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert 'href="javascript' not in html and "<b>T</b>" not in html
        assert '<a href="https://example.com/a?b=1&amp;c=2" rel="noopener nofollow" target="_blank">ok</a>' in html


class TestMarkup:
    def test_paragraphs_headings_lists_and_marks(self):
        html = render_page_body("# Title\n\nOne *a*\ntwo\n- x\n- **y**\n\n## Sub\n[home](/)")
        assert html == (
            "<h2>Title</h2>\n<p>One <em>a</em><br>two</p>\n<ul><li>x</li><li><strong>y</strong></li></ul>\n"
            '<h3>Sub</h3>\n<p><a href="/">home</a></p>'
        )

    def test_links_only_to_http_or_the_site(self):
        for text in (
            "[a](javascript:x)",
            "[a](//evil.example/x)",
            "[a](data:text/html,x)",
            '[a](https://x" onclick="y)',
        ):
            assert "<a " not in render_page_body(text), text

    def test_summary(self):
        assert page_summary("# Big **news** [here](https://x.y)\n\nmore " + "w " * 100).startswith("Big news here more")
        assert len(page_summary("w " * 200)) == 160


class TestAdmin:
    def test_operators_write_a_page_and_a_route_or_a_foreign_language_is_refused(self, site):
        client = staff_client(staff_member("operators"))
        url = reverse("admin:landers_sitepage_add", urlconf="config.urls_public")
        data = {"site": site.pk, "token": "signup", "language": "en", "title": "T", "body": "B", "published": "on"}
        response = client.post(url, data, HTTP_HOST=ADMIN_HOST)
        assert response.status_code == 200
        assert "This address is already a page of the sites." in response.content.decode()
        response = client.post(url, {**data, "token": "about-us", "language": "de"}, HTTP_HOST=ADMIN_HOST)
        assert "Choose one of the site&#x27;s languages: en, fr." in response.content.decode()
        response = client.post(url, {**data, "token": "Bad_Token"}, HTTP_HOST=ADMIN_HOST)
        assert "Use lower-case letters, digits and hyphens only" in response.content.decode()
        response = client.post(url, {**data, "token": "about-us"}, HTTP_HOST=ADMIN_HOST)
        assert response.status_code == 302
        assert SitePage.objects.get(site=site, token="about-us").published

    def test_support_cannot_edit_pages(self, site):
        client = staff_client(staff_member("support"))
        assert (
            client.get(
                reverse("admin:landers_sitepage_changelist", urlconf="config.urls_public"), HTTP_HOST=ADMIN_HOST
            ).status_code
            == 403
        )
