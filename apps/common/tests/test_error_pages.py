"""Error pages over ASGI (issue 13 item 1): Django answers an exception in a thread of its
own; the page must still be built in the site of the request's host, for the member who is
logged in, and never log them out."""

import pytest
from django.conf import settings

from tests.live import client

pytestmark = pytest.mark.django_db(transaction=False)


def _logged_out(response) -> bool:
    cookie = response.headers.get_list("set-cookie")
    return any(line.startswith(f"{settings.SESSION_COOKIE_NAME}=") for line in cookie)


@pytest.mark.parametrize(
    "path",
    [
        "/no-such-page",
        "/members/999999999",
        "/media/site_localhost/photos/deleted-photo.jpg",
    ],
)
def test_error_pages_are_built_outside_the_sites_schema(site, gay_site, site_server, committed, path):
    profile = committed.member(site, "Lost")
    with client(site_server, "localhost", committed.session(site, profile.user)) as http:
        response = http.get(path)
    assert response.status_code == 404
    assert not _logged_out(response), response.headers.get_list("set-cookie")
    assert 'data-testid="error-page"' in response.text
    assert f'data-testid="topbar-name">{profile.name}<' in response.text  # still logged in
    assert f'data-testid="site-name">{site.name}<' in response.text

    # The other site's error page is its own, and a session of one site is nobody on the other.
    with client(site_server, "gay.localhost") as http:
        response = http.get(path)
    assert response.status_code == 404
    assert f'data-testid="site-name">{gay_site.name}<' in response.text
    assert 'data-testid="topbar-name"' not in response.text
