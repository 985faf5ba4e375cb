"""A local fake of Twilio's Programmable Messaging REST API for tests: a real HTTP/1.1
server on the loopback address that takes `POST /2010-04-01/Accounts/<sid>/Messages.json`
as Twilio does (HTTP Basic auth with the account SID and auth token, a form with To,
From, Body and StatusCallback), answers 201 with the message resource, or Twilio's error
JSON ({"code", "message", "more_info", "status"}), and reports deliveries to the
message's StatusCallback signed as Twilio signs them (X-Twilio-Signature: base64
HMAC-SHA1 of the address and the sorted parameters, keyed with the auth token).

    with FakeTwilio() as twilio:
        twilio.account("AC…", "token")             # the accounts it knows
        settings.TWILIO_API_URL = twilio.url
        ... the site sends ...
        [message] = twilio.wait_for(1)
        twilio.fail_next(400, 21211)                  # the next message: Twilio's error answer
        twilio.delay = 5                              # answer after 5 s (a slow provider)
        twilio.report(message, "delivered")           # the delivery receipt, signed

Twilio's checks that matter here: the account must exist and the credentials match (401,
code 20003), To must be an E.164 number (400, 21211), From and Body must be given (400,
21603 and 21602)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

MESSAGES_PATH = re.compile(r"/2010-04-01/Accounts/(AC[0-9a-f]{32})/Messages\.json")
E164 = re.compile(r"\+[1-9][0-9]{6,14}")
ERROR_MESSAGES = {
    20003: "Authenticate",
    20429: "Too Many Requests",
    21211: "The 'To' number is not a valid phone number.",
    21602: "Message body is required.",
    21603: "A 'From' phone number is required.",
    21614: "'To' number is not a valid mobile number",
}


def twilio_signature(url: str, params: dict[str, str], auth_token: str) -> str:
    """Twilio's request signature, written from its documentation (not the SDK's code):
    the address, then each parameter's name and value in the names' order."""
    data = url + "".join(f"{name}{params[name]}" for name in sorted(params))
    return base64.b64encode(hmac.new(auth_token.encode(), data.encode(), hashlib.sha1).digest()).decode()


@dataclass
class Message:
    sid: str
    account_sid: str
    to: str
    sender: str
    body: str
    status_callback: str
    received: float = field(default_factory=time.monotonic)


@dataclass
class Answer:
    status: int
    code: int | None = None
    message: str = ""


class FakeTwilio:
    def __init__(self) -> None:
        self.accounts: dict[str, str] = {}
        self.messages: list[Message] = []
        self.requests = 0  # every request that reached the server, answered or not
        self.delay = 0.0
        self._answers: list[Answer] = []
        self._lock = threading.Condition()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    # --- set-up -----------------------------------------------------------------

    def account(self, sid: str | None = None, token: str | None = None) -> tuple[str, str]:
        sid = sid or "AC" + secrets.token_hex(16)
        token = token or secrets.token_hex(16)
        self.accounts[sid] = token
        return sid, token

    def fail_next(self, status: int, code: int | None = None, message: str = "") -> None:
        """The next message gets this answer instead of 201 (e.g. 400 21211, 401 20003, 429, 500)."""
        with self._lock:
            self._answers.append(Answer(status, code, message or ERROR_MESSAGES.get(code or 0, "Error")))

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Message]:
        deadline = time.monotonic() + timeout
        with self._lock:
            while len(self.messages) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"expected {count} messages, got {len(self.messages)}")
                self._lock.wait(left)
            return list(self.messages)

    def report(
        self, message: Message, status: str, *, error_code: int | None = None, connect_to: str = ""
    ) -> tuple[int, bytes]:
        """Post the delivery receipt of `message` to its StatusCallback as Twilio does;
        `connect_to` ("127.0.0.1:port") reaches a host name that does not resolve."""
        params = {
            "AccountSid": message.account_sid,
            "ApiVersion": "2010-04-01",
            "From": message.sender,
            "MessageSid": message.sid,
            "MessageStatus": status,
            "SmsSid": message.sid,
            "SmsStatus": status,
            "To": message.to,
        }
        if error_code is not None:
            params["ErrorCode"] = str(error_code)
        signature = twilio_signature(message.status_callback, params, self.accounts[message.account_sid])
        parts = urlsplit(message.status_callback)
        target = message.status_callback
        if connect_to:
            target = f"{parts.scheme}://{connect_to}{parts.path}"
        request = urllib.request.Request(
            target,
            data=urlencode(params).encode(),
            headers={
                "Host": parts.netloc,
                "Content-Type": "application/x-www-form-urlencoded",
                "X-Twilio-Signature": signature,
                "User-Agent": "TwilioProxy/1.1",
            },
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    # --- the server ---------------------------------------------------------------

    def __enter__(self) -> FakeTwilio:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.delay = 0
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format, *args) -> None:
                pass

            def _json(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _error(self, status: int, code: int | None, message: str) -> None:
                self._json(
                    status,
                    {
                        "code": code,
                        "message": message,
                        "more_info": f"https://www.twilio.com/docs/errors/{code}" if code else None,
                        "status": status,
                    },
                )

            def do_POST(self) -> None:
                with fake._lock:
                    fake.requests += 1
                length = int(self.headers.get("Content-Length") or 0)
                form = {name: values[-1] for name, values in parse_qs(self.rfile.read(length).decode()).items()}
                if fake.delay:
                    time.sleep(fake.delay)  # a slow provider: the client's timeout decides
                match = MESSAGES_PATH.fullmatch(urlsplit(self.path).path)
                if not match:
                    self._error(404, 20404, "The requested resource was not found")
                    return
                sid = match[1]
                auth = self.headers.get("Authorization", "")
                given = ""
                if auth.startswith("Basic "):
                    given = base64.b64decode(auth[6:]).decode(errors="replace")
                if sid not in fake.accounts or given != f"{sid}:{fake.accounts[sid]}":
                    self._error(401, 20003, ERROR_MESSAGES[20003])
                    return
                with fake._lock:
                    answer = fake._answers.pop(0) if fake._answers else None
                if answer is not None:
                    self._error(answer.status, answer.code, answer.message)
                    return
                to, sender, body = form.get("To", ""), form.get("From", ""), form.get("Body", "")
                if not E164.fullmatch(to):
                    self._error(400, 21211, f"The 'To' number {to} is not a valid phone number.")
                    return
                if not sender:
                    self._error(400, 21603, ERROR_MESSAGES[21603])
                    return
                if not body:
                    self._error(400, 21602, ERROR_MESSAGES[21602])
                    return
                message = Message(
                    sid="SM" + secrets.token_hex(16),
                    account_sid=sid,
                    to=to,
                    sender=sender,
                    body=body,
                    status_callback=form.get("StatusCallback", ""),
                )
                with fake._lock:
                    fake.messages.append(message)
                    fake._lock.notify_all()
                now = format_datetime(datetime.now(UTC), usegmt=True)
                self._json(
                    201,
                    {
                        "account_sid": sid,
                        "api_version": "2010-04-01",
                        "body": body,
                        "date_created": now,
                        "date_sent": None,
                        "date_updated": now,
                        "direction": "outbound-api",
                        "error_code": None,
                        "error_message": None,
                        "from": sender,
                        "messaging_service_sid": None,
                        "num_media": "0",
                        "num_segments": "1",
                        "price": None,
                        "price_unit": "EUR",
                        "sid": message.sid,
                        "status": "queued",
                        "subresource_uris": {"media": f"/2010-04-01/Accounts/{sid}/Messages/{message.sid}/Media.json"},
                        "to": to,
                        "uri": f"/2010-04-01/Accounts/{sid}/Messages/{message.sid}.json",
                    },
                )

        return Handler
