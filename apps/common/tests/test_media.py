"""Media files in development (issue 13 item 5): with DEBUG on there is no catch-all media
route; every file goes through the view that checks its site and its member."""

import importlib

import pytest
from django.urls import clear_url_caches

from apps.chat.tests.helpers import credits_give, member, send
from apps.profiles.tests.helpers import jpeg_upload
from apps.profiles.tests.helpers_view import logged_in

pytestmark = pytest.mark.django_db

REFUSED = (400, 404)  # a NUL byte is refused before routing (apps.common.middleware)


@pytest.fixture
def debug_urls(settings):
    """The sites' URLs as `make run` (DEBUG on) builds them."""
    import config.urls

    settings.DEBUG = True
    importlib.reload(config.urls)
    clear_url_caches()
    yield
    settings.DEBUG = False
    importlib.reload(config.urls)
    clear_url_caches()


def test_debug_media_route_serves_path_variants_to_anyone(site, gay_site, client_for, debug_urls):
    anna = member(site, "Anna")
    ben = member(site, "Ben", gender="male")
    carl = member(site, "Carl", gender="male")
    credits_give(site, anna.user, 10)
    _conversation, message = send(site, anna, ben, "", photo=jpeg_upload())
    name = message.photo.name
    schema, _folder, file = name.split("/")
    assert logged_in(site, client_for, ben).get(f"/media/{name}").status_code == 200

    variants = [
        f"/media/{name}",
        f"/media//{name}",
        f"/media/{schema}//chat/{file}",
        f"/media/./{name}",
        f"/media/{schema}/./chat/{file}",
        f"/media/x/../{name}",
        f"/media/{schema}/photos/../chat/{file}",
        f"/media/{schema}/chat/{file}%00",
        f"/media/{schema}/chat/%00{file}",
    ]
    for path in variants:
        assert logged_in(site, client_for, carl).get(path).status_code in REFUSED, path
        assert client_for(site).get(path).status_code in REFUSED, path
        assert client_for(gay_site).get(path).status_code in REFUSED, path
    for path in variants[1:]:
        assert logged_in(site, client_for, ben).get(path).status_code in REFUSED, path


def test_a_gift_picture_is_served_on_its_own_sites_host_only(site, gay_site, client_for):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.tenants.models import Gift

    gift = Gift(site=site, name="Rose picture", position=99)
    gift.image.save("rose.jpg", SimpleUploadedFile("rose.jpg", jpeg_upload(64, 64).read()), save=True)
    url = gift.image.url
    assert url.startswith("/media/public/gifts/")
    response = client_for(site).get(url)
    assert response.status_code == 200
    assert b"".join(response.streaming_content)[:2] == b"\xff\xd8"
    assert client_for(gay_site).get(url).status_code == 404
    assert client_for(site).get(url.replace("/gifts/", "/gifts//")).status_code == 404
