"""OpenAPI post-processing (drf-spectacular): every operation documents the API's error
answers (spec §8) with the one JSON error shape, so a generated client knows them."""

from drf_spectacular.openapi import AutoSchema

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "description": "Stable, machine-readable code."},
                "message": {"type": "string", "description": "Translated text for the member."},
                "fields": {
                    "type": "object",
                    "description": "Per-field messages of an invalid input.",
                    "additionalProperties": True,
                },
            },
            "additionalProperties": True,
        }
    },
}

# The security of the calls that answer only a logged-in member: the session cookie, with
# no anonymous alternative (drf-spectacular's default for DRF's session authentication).
MEMBER_ONLY = [{"cookieAuth": []}]

ERROR_ANSWERS = {
    "400": "The input is not valid; `error.fields` names the fields.",
    "402": "Not enough credits for a paid action.",
    "403": "Not logged in, not allowed, or the CSRF token is missing.",
    "404": "No such object on this site.",
    "405": "This method is not offered here.",
    "409": "Well-formed, but the state forbids it: yourself, already done, not done, not offered to you.",
    "413": "The request body is too large.",
    "415": "This content type is not accepted.",
    "429": "Too many requests; try again later.",
    "503": "A service did not answer; try again.",
}


def error_answers(result, generator, request, public):
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    reference = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for item in result.get("paths", {}).values():
        for operation in item.values():
            responses = operation.setdefault("responses", {})
            for status, description in ERROR_ANSWERS.items():
                responses.setdefault(status, {"description": description, "content": reference})
    return result


class SiteAutoSchema(AutoSchema):
    """drf-spectacular documents request bodies for POST, PUT and PATCH only. The API's
    DELETE calls (likes, blocks, chats, photos) take a JSON body as the spec's client
    sends it; where a view declares one with `extend_schema(request=...)`, document it."""

    def _get_request_body(self, direction="request"):
        if self.method != "DELETE" or self.get_request_serializer() is None:
            return super()._get_request_body(direction)
        self.method = "POST"
        try:
            return super()._get_request_body(direction)
        finally:
            self.method = "DELETE"


def _body(**values: str) -> dict:
    return {"requestBody": values}


# Which answer names the id a next call takes (OpenAPI links): a generated client, and
# schemathesis's stateful phase, chain the calls through them (open a chat, read it, write
# in it, delete it, read it again: 404). Per operation id and status: {name: link}.
ANSWER_LINKS: dict[tuple[str, str], dict[str, dict]] = {
    ("chat_open", "200"): {
        "ChatHistory": {"operationId": "chat_history", "parameters": {"conversation": "$response.body#/conversation"}},
        "ChatRead": {"operationId": "chat_read", **_body(conversation="$response.body#/conversation")},
        "MessageSend": {"operationId": "message_send", **_body(conversation="$response.body#/conversation")},
        "ChatDelete": {"operationId": "chat_delete", **_body(conversation="$response.body#/conversation")},
    },
    ("chats_list", "200"): {
        "ChatHistory": {
            "operationId": "chat_history",
            "parameters": {"conversation": "$response.body#/chats/0/conversation"},
        },
        "ChatDelete": {"operationId": "chat_delete", **_body(conversation="$response.body#/chats/0/conversation")},
        "ChatOpen": {"operationId": "chat_open", **_body(profile="$response.body#/chats/0/profile")},
    },
    ("search", "200"): {
        "ChatOpen": {"operationId": "chat_open", **_body(profile="$response.body#/results/0/id")},
        "LikeCreate": {"operationId": "likes_create", **_body(profile="$response.body#/results/0/id")},
        "BlockCreate": {"operationId": "block_create", **_body(profile="$response.body#/results/0/id")},
    },
    ("swipe_deck", "200"): {
        "SwipeCreate": {"operationId": "swipe_create", **_body(profile="$response.body#/deck/0/id")},
    },
    ("likes_create", "200"): {
        "LikeDelete": {"operationId": "likes_delete", **_body(profile="$response.body#/profile/id")},
        "ChatOpen": {"operationId": "chat_open", **_body(profile="$response.body#/profile/id")},
    },
    ("block_create", "200"): {
        "BlockDelete": {"operationId": "block_delete", **_body(profile="$response.body#/profile")},
    },
    ("gifts_list", "200"): {
        "MessageSend": {"operationId": "message_send", **_body(gift="$response.body#/gifts/0/id")},
    },
    ("photos_create", "201"): {
        "PhotoDelete": {"operationId": "photos_delete", **_body(photo="$response.body#/photo")},
    },
    ("photos_list", "200"): {
        "PhotoDelete": {"operationId": "photos_delete", **_body(photo="$response.body#/photos/0/id")},
    },
}


def answer_links(result, generator, request, public):
    operations = {
        operation.get("operationId"): operation
        for item in result.get("paths", {}).values()
        for operation in item.values()
        if isinstance(operation, dict)
    }
    for (operation_id, status), links in ANSWER_LINKS.items():
        answer = operations.get(operation_id, {}).get("responses", {}).get(status)
        if answer is not None and all(link["operationId"] in operations for link in links.values()):
            answer["links"] = links
    return result
