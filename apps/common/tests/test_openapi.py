import pytest

from apps.profiles.tests.helpers_view import logged_in, member

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


def _answer(schema: dict, path: str, method: str, status: str) -> dict:
    content = schema["paths"][path][method]["responses"][status].get("content", {})
    answer = content.get("application/json", {}).get("schema", {})
    if "$ref" in answer:
        answer = schema["components"]["schemas"][answer["$ref"].rsplit("/", 1)[1]]
    return answer


def test_every_answer_of_the_api_is_typed(site, client_for):
    """Each success answer names its fields: none is a free-form object."""
    schema = _schema(site, client_for)
    free = []
    for path, item in schema["paths"].items():
        if not path.startswith("/api/") or not path.endswith(".php"):
            continue
        for method, operation in item.items():
            for status in operation["responses"]:
                if status.startswith("2") and not _answer(schema, path, method, status).get("properties"):
                    free.append(f"{method.upper()} {path} {status}")
    assert not free, free


def test_the_answers_link_the_ids_to_the_calls_that_take_them(site, client_for):
    """OpenAPI links: opening a chat names the conversation that reading, writing in and
    deleting it take; a search result's id is the profile a like, block or chat takes."""
    schema = _schema(site, client_for)
    operations = {op["operationId"] for item in schema["paths"].values() for op in item.values()}
    opened = schema["paths"]["/api/chat.php"]["post"]["responses"]["200"]["links"]
    assert opened["ChatHistory"] == {
        "operationId": "chat_history",
        "parameters": {"conversation": "$response.body#/conversation"},
    }
    assert {link["operationId"] for link in opened.values()} == {
        "chat_history",
        "chat_read",
        "message_send",
        "chat_delete",
    }
    found = schema["paths"]["/api/search.php"]["get"]["responses"]["200"]["links"]
    assert found["LikeCreate"]["requestBody"] == {"profile": "$response.body#/results/0/id"}
    for item in schema["paths"].values():
        for operation in item.values():
            for answer in operation["responses"].values():
                for link in answer.get("links", {}).values():
                    assert link["operationId"] in operations, link


def test_a_nul_in_json_text_is_the_documented_400(site, client_for):
    """No field's schema can say it: the API's description does, and the parser keeps to it."""
    assert "NUL" in _schema(site, client_for)["info"]["description"]
    client = logged_in(site, client_for, member(site, "Anna"))
    response = client.put("/api/user.php", data='{"language": "e\\u0000n"}', content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "parse_error"


def test_the_signup_profile_takes_a_country_as_the_schema_spells_it(site, client_for):
    schema = _schema(site, client_for)
    country = schema["components"]["schemas"]["SignupProfileInputRequest"]["properties"]["country"]
    assert "GB" in country["enum"] and "gb" not in country["enum"]
    client = logged_in(site, client_for, member(site, "Anna"))
    lower = client.patch("/api/signup/profile.php", {"country": "gb"}, content_type="application/json")
    assert lower.status_code == 400
    assert set(lower.json()["error"]["fields"]) == {"country"}
    upper = client.patch("/api/signup/profile.php", {"country": "GB"}, content_type="application/json")
    assert upper.status_code == 200
    assert upper.json()["profile"]["country"] == "GB"


def test_the_ids_a_chat_answer_names_lead_to_it_until_it_is_deleted(site, client_for):
    """What the stateful phase chains: the conversation that opening a chat names is the
    one reading and deleting take. Deleting hides it from the member's list with its
    messages so far (the other member keeps theirs; apps.chat.services.conversation_delete);
    someone else's conversation is 404."""
    anna = member(site, "Anna")
    ben = member(site, "Ben", gender="male")
    client = logged_in(site, client_for, anna)
    opened = client.post("/api/chat.php", {"profile": ben.pk}, content_type="application/json")
    conversation = opened.json()["conversation"]
    assert client.get(f"/api/chat.php?conversation={conversation}").json()["conversation"]["id"] == conversation
    deleted = client.delete("/api/chat.php", {"conversation": conversation}, content_type="application/json")
    assert deleted.json() == {"deleted": 1}
    assert conversation not in [chat["conversation"] for chat in client.get("/api/chats.php").json()["chats"]]
    assert client.get(f"/api/chat.php?conversation={conversation}").json()["messages"] == []
    carl = logged_in(site, client_for, member(site, "Carl", gender="male"))
    assert carl.get(f"/api/chat.php?conversation={conversation}").status_code == 404
    read = carl.post("/api/chat-read.php", {"conversation": conversation}, content_type="application/json")
    assert read.status_code == 404
