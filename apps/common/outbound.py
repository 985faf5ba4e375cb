"""Connecting to a URL someone outside handed us (a member's push endpoint, a partner's
postback URL) without becoming a way into our own network.

The rule (docs/security.md "Push sender"; the postbacks of apps.conversions follow it
too): https on port 443 with no user or password; a host name is resolved once for each
connection, every address it has is checked (public unicast only: no loopback, private,
link-local, reserved, multicast, nor an IPv6 form carrying such an IPv4 address) and the
connection goes to one of those very addresses, with the name kept for TLS and the Host
header (`VettedResolver`: aiohttp's resolver for the postbacks, and the push sender's own
lookup). A name that answers a public address to a check and the loopback address to the
connection (DNS rebinding) has no second answer to give.
Callers follow no redirect and use no proxy from the environment.

With the check off (`checked=False`: the tests' local fakes on 127.0.0.1, never
production) any http(s) URL and any address are allowed."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from typing import NamedTuple
from urllib.parse import SplitResult, urlsplit

from aiohttp.abc import AbstractResolver, ResolveResult

HTTPS_PORT = 443


class EndpointRefused(OSError):
    """A URL (or an address of its host) we do not connect to."""


def address_public(address: str) -> bool:
    """Whether `address` (an IP address as text) is one the server may connect to for
    someone outside: a global unicast address, and for the IPv6 forms that carry an IPv4
    address (mapped, 6to4, NAT64) only when that one is public too."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if not ip.is_global or ip.is_multicast or ip.is_reserved:
        return False
    if ip.version == 6:
        if ip.is_site_local:  # fec0::/10, deprecated but still routed inside some networks
            return False
        # ::ffff:a.b.c.d and 64:ff9b::/96 are reserved (refused above); 6to4 reaches the
        # IPv4 address inside it, Teredo a relay: the inner address decides, or nothing.
        if ip.teredo is not None:
            return False
        if ip.sixtofour is not None:
            return address_public(str(ip.sixtofour))
    return True


def https_host(url, *, max_length: int) -> str | None:
    """The host of a URL the server may connect to (https, port 443, no user or
    password, printable, at most `max_length`), or None. Says nothing about the host's
    addresses."""
    parts = _https_parts(url, max_length=max_length)
    return None if parts is None else parts.hostname


def _https_parts(url, *, max_length: int) -> SplitResult | None:
    """https_host's rule: the URL's parts when it holds, else None."""
    if not isinstance(url, str) or len(url) > max_length or not url.isprintable():
        return None
    try:
        parts = urlsplit(url)
        port = parts.port or HTTPS_PORT
    except ValueError:
        return None
    if parts.scheme != "https" or port != HTTPS_PORT or not parts.hostname or parts.username or parts.password:
        return None
    return parts


def numeric_host(host: str) -> bool:
    """A host made of digits and dots only (2130706433, 127.1, 0x7f.1): old IPv4 forms
    the resolver would turn into an address; never a real service's name."""
    return host.replace(".", "").isdigit() or host.lower().startswith("0x")


def url_refusal(url: str, *, checked: bool, max_length: int) -> str:
    """Why the server does not connect to `url` ("" when it may), from the URL alone:
    https on port 443 with a host name or a public address (checked), or any http(s)
    URL (check off)."""
    return url_split_refusal(url, checked=checked, max_length=max_length)[1]


class Target(NamedTuple):
    """A URL the server may connect to: its parts (urlsplit's), host name and port."""

    parts: SplitResult
    host: str
    port: int | None


def url_split_refusal(url: str, *, checked: bool, max_length: int) -> tuple[Target | None, str]:
    """url_refusal, with the URL's Target when it may be connected to, for a caller that
    needs its parts too (the URL split once)."""
    if not checked:
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            return None, "not a URL"
        host = parts.hostname
        if parts.scheme not in ("http", "https") or not host:
            return None, "not an http(s) URL"
        return Target(parts, host, port), ""
    parts = _https_parts(url, max_length=max_length)
    if parts is None:
        return None, "not an https URL on port 443"
    host = parts.hostname
    try:
        literal = socket.inet_pton(socket.AF_INET6 if ":" in host else socket.AF_INET, host)
    except OSError:
        literal = None
    # An address in the URL is connected to without a lookup: it is checked here.
    if literal is not None and not address_public(host):
        return None, f"{host} is not a public address"
    if literal is None and numeric_host(host):
        return None, f"{host} is not a canonical address"
    return Target(parts, host, HTTPS_PORT), ""


def refused_by_us(error: BaseException | None) -> EndpointRefused | None:
    """The EndpointRefused behind an error aiohttp wrapped (the resolver's), if any."""
    seen = 0
    while error is not None and seen < 5:
        if isinstance(error, EndpointRefused):
            return error
        error = getattr(error, "os_error", None) or error.__cause__
        seen += 1
    return None


class VettedResolver(AbstractResolver):
    """DNS for aiohttp: one lookup for each connection it opens; the connection goes to
    one of the addresses returned here, so every one of them is checked, and an answer
    with any address that is not public refuses the host (checked). The lookup runs in
    the loop's executor, the blocking getaddrinfo of the system."""

    def __init__(self, *, checked: bool) -> None:
        self.checked = checked

    async def resolve(self, host: str, port: int = 0, family: int = socket.AF_UNSPEC) -> list[ResolveResult]:
        loop = asyncio.get_running_loop()
        found = await loop.run_in_executor(None, socket.getaddrinfo, host, port, family, socket.SOCK_STREAM)
        results: list[ResolveResult] = []
        for address_family, _type, proto, _name, sockaddr in found:
            address = sockaddr[0]
            if self.checked and not address_public(address):
                raise EndpointRefused(f"{host} has the address {address}, which is not public")
            results.append(
                ResolveResult(
                    hostname=host,
                    host=address,
                    port=sockaddr[1],
                    family=address_family,
                    proto=proto,
                    flags=socket.AI_NUMERICHOST | socket.AI_NUMERICSERV,
                )
            )
        if not results:
            raise OSError(f"{host} has no address")
        return results

    async def close(self) -> None:
        pass
