import pytest

pytestmark = pytest.mark.django_db


def test_the_openapi_schema_documents_the_api(site, client_for):
    response = client_for(site).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    body = response.content.decode()
    for path in ("/api/settings.php", "/api/user.php", "/api/logout.php", "/api/signup.php"):
        assert path in body


def _schema(site, client_for) -> dict:
    response = client_for(site).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def _request_properties(schema: dict, path: str, method: str) -> set[str]:
    content = schema["paths"][path][method]["requestBody"]["content"]
    fields: set[str] = set()
    for media in content.values():
        body = media["schema"]
        if "$ref" in body:
            body = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]
        for shape in body.get("oneOf", [body]):
            fields |= set(shape["properties"])
    return fields


@pytest.mark.parametrize(
    ("path", "method", "fields"),
    [
        ("/api/signup.php", "post", {"email", "name", "password", "date_of_birth", "signup_message", "profile_id"}),
        ("/api/signup/profile.php", "post", {"gender", "sexuality", "country", "region", "city", "about_me", "done"}),
        ("/api/signup/profile.php", "patch", {"gender", "country", "city", "done"}),
        ("/api/message.php", "post", {"conversation", "client_id", "text", "gift", "photo"}),
        ("/api/chat-read.php", "post", {"conversation"}),
        ("/api/swipe.php", "post", {"profile", "action"}),
        ("/api/likes.php", "post", {"profile"}),
        ("/api/likes.php", "delete", {"profile"}),
        ("/api/dismiss.php", "post", {"alert"}),
        ("/api/block.php", "post", {"profile"}),
        ("/api/block.php", "delete", {"profile"}),
    ],
)
def test_the_openapi_schema_is_wrong_every_input_collapses(site, client_for, path, method, fields):
    """Issue 13 item 4: each call documents its own body, not one shared `Input`."""
    assert fields <= _request_properties(_schema(site, client_for), path, method)


def test_the_openapi_schema_documents_the_error_answers(site, client_for):
    schema = _schema(site, client_for)
    error = schema["components"]["schemas"]["Error"]
    assert error["required"] == ["error"]
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            for status in ("400", "403", "404", "429"):
                answer = operation["responses"][status]["content"]["application/json"]["schema"]
                assert answer == {"$ref": "#/components/schemas/Error"}, (path, method, status)


def test_the_schema_builds_without_warnings():
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator

    GENERATOR_STATS.reset()
    SchemaGenerator(urlconf="config.urls").get_schema(request=None, public=True)
    assert not GENERATOR_STATS, {**GENERATOR_STATS._warn_cache, **GENERATOR_STATS._error_cache}
