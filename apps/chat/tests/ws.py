"""A WebSocket test client for an ASGI application: Channels' WebsocketCommunicator
without `channels.testing`, whose package imports Daphne (not a dependency here)."""

import json
from urllib.parse import unquote, urlparse

from asgiref.testing import ApplicationCommunicator


class WebsocketCommunicator(ApplicationCommunicator):
    def __init__(self, application, path: str, headers=None):
        parsed = urlparse(path)
        scope = {
            "type": "websocket",
            "path": unquote(parsed.path),
            "query_string": parsed.query.encode(),
            "headers": headers or [],
            "subprotocols": [],
        }
        super().__init__(application, scope)

    async def connect(self, timeout: float = 1) -> tuple[bool, object]:
        """(True, subprotocol) when accepted, (False, close code) when refused."""
        await self.send_input({"type": "websocket.connect"})
        response = await self.receive_output(timeout)
        if response["type"] == "websocket.close":
            return False, response.get("code", 1000)
        assert response["type"] == "websocket.accept", response
        return True, response.get("subprotocol")

    async def send_to(self, *, text_data: str) -> None:
        await self.send_input({"type": "websocket.receive", "text": text_data})

    async def send_json_to(self, data) -> None:
        await self.send_to(text_data=json.dumps(data))

    async def receive_json_from(self, timeout: float = 1):
        response = await self.receive_output(timeout)
        assert response["type"] == "websocket.send", response
        return json.loads(response["text"])

    async def disconnect(self, code: int = 1000, timeout: float = 1) -> None:
        await self.send_input({"type": "websocket.disconnect", "code": code})
        await self.wait(timeout)


class HttpCommunicator(ApplicationCommunicator):
    """One HTTP request to an ASGI application (Channels' HttpCommunicator, likewise)."""

    def __init__(self, application, method: str, path: str, body: bytes = b"", headers=None):
        parsed = urlparse(path)
        scope = {
            "type": "http",
            "http_version": "1.1",
            "method": method.upper(),
            "path": unquote(parsed.path),
            "query_string": parsed.query.encode(),
            "headers": [*(headers or []), (b"content-length", str(len(body)).encode())],
        }
        super().__init__(application, scope)
        self.body = body

    async def get_response(self, timeout: float = 1) -> dict:
        """{"status", "headers", "body"} once the whole body has been sent."""
        await self.send_input({"type": "http.request", "body": self.body})
        start = await self.receive_output(timeout)
        assert start["type"] == "http.response.start", start
        body = b""
        while True:
            chunk = await self.receive_output(timeout)
            assert chunk["type"] == "http.response.body", chunk
            body += chunk.get("body", b"")
            if not chunk.get("more_body", False):
                return {"status": start["status"], "headers": start.get("headers", []), "body": body}
