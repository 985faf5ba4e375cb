"""No island's script blocks the first render of its server-rendered page: every external
script is a module (deferred by nature), async or defer; no script without src runs (the
JSON props and app state are data); the only stylesheet is the main one (docs/bench.md, "js")."""

from html.parser import HTMLParser

import pytest

from apps.common.islands import manifest
from apps.profiles.tests.test_search import member_client

DATA_TYPES = {"application/json", "application/ld+json"}


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[dict, bool]] = []  # (attributes, in <head>)
        self.stylesheets: list[tuple[dict, bool]] = []
        self.islands = 0
        self.in_head = False

    def handle_starttag(self, tag, attrs):
        attributes = {name: value or "" for name, value in attrs}
        if tag == "head":
            self.in_head = True
        elif tag == "body":
            self.in_head = False
        elif tag == "script":
            self.scripts.append((attributes, self.in_head))
        elif tag == "link" and "stylesheet" in attributes.get("rel", "").lower().split():
            self.stylesheets.append((attributes, self.in_head))
        if "data-island" in attributes:
            self.islands += 1

    def handle_endtag(self, tag):
        if tag == "head":
            self.in_head = False


def blocking(html: str, main_css: str) -> list[str]:
    """What in `html` holds the first render back: a classic script (no type=module, async
    or defer), an inline script that is not data, or a stylesheet besides the main one."""
    tags = Tags()
    tags.feed(html)
    found = []
    for attributes, in_head in tags.scripts:
        where = "<head>" if in_head else "<body>"
        kind = attributes.get("type", "").lower()
        if "src" not in attributes:
            if kind not in DATA_TYPES:
                found.append(f"inline script in {where}: {attributes}")
        elif kind != "module" and "async" not in attributes and "defer" not in attributes:
            found.append(f"classic script in {where}: {attributes['src']}")
    for attributes, in_head in tags.stylesheets:
        media = attributes.get("media", "all").lower()
        if attributes.get("href", "").endswith(f"/dist/{main_css}"):
            continue
        if media in ("print", "not all"):
            continue  # never blocks the screen
        found.append(f"extra stylesheet in {'<head>' if in_head else '<body>'}: {attributes.get('href')}")
    return found


def render(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, path
    return response.content.decode()


def check(html: str) -> None:
    tags = Tags()
    tags.feed(html)
    assert tags.islands, "the page has no island: the check would prove nothing"
    modules = [attributes for attributes, _ in tags.scripts if attributes.get("type") == "module"]
    assert len(modules) >= 2, "the base entry and at least one island load as modules"
    assert blocking(html, manifest()["css"]["main"]) == []


@pytest.mark.parametrize("path", ["/", "/signup", "/landers/gallery"])
def test_a_visitors_island_pages_have_no_render_blocking_script(site, client_for, path):
    check(render(client_for(site), path))


@pytest.mark.parametrize("path", ["/members", "/chats", "/credits"])
def test_a_members_island_pages_have_no_render_blocking_script(site, client_for, path):
    client, _profile = member_client(site, client_for)
    check(render(client, path))


def test_a_classic_script_or_an_extra_stylesheet_is_found():
    css = "main-ABC.css"
    page = (
        '<html><head><link rel="stylesheet" href="/static/dist/main-ABC.css">'
        '<script type="module" src="/static/dist/base/index.js"></script>'
        '<script type="application/json" id="app-state">{}</script>'
        '<link rel="stylesheet" href="/static/print.css" media="print"></head><body>'
        '<script type="module" src="/static/dist/islands/A/index.js"></script>'
        '<script async src="/a.js"></script><script defer src="/d.js"></script></body></html>'
    )
    assert blocking(page, css) == []
    assert blocking(page.replace("<head>", '<head><script src="/static/x.js"></script>'), css) == [
        "classic script in <head>: /static/x.js"
    ]
    assert blocking(page.replace("</body>", '<script type="text/javascript" src="/y.js"></script></body>'), css) == [
        "classic script in <body>: /y.js"
    ]
    assert blocking(page.replace("</body>", "<script>alert(1)</script></body>"), css) == ["inline script in <body>: {}"]
    assert blocking(page.replace("</head>", '<link rel="stylesheet" href="/static/dist/x.css"></head>'), css) == [
        "extra stylesheet in <head>: /static/dist/x.css"
    ]
