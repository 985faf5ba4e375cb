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
