"""The site, as the request cycle in common sees it.

The sites' app (apps.tenants) is built on common: its models keep their keys in
common's encrypted field, name their files through common's storage and answer with
common's errors. So common imports no app, and what its request cycle needs of the
site lookup (the page cache: the site of a host; the real-time transport: the current
site) the sites' app hands over here when it starts (TenantsConfig.ready). The lookup
keeps its one home: apps.tenants.current and apps.tenants.middleware.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest
from django_tenants.utils import get_public_schema_name

# Registered once, from TenantsConfig.ready(); read on every request, never changed
# while requests run.
_lookup: dict[str, Callable[..., Any]] = {}


def site_lookup_register(
    *,
    current_site: Callable[[], Any],
    site_cached: Callable[[str], tuple[Any, float] | None],
    site_for_host: Callable[[str], Any],
) -> None:
    _lookup.update(current_site=current_site, site_cached=site_cached, site_for_host=site_for_host)


def current_site():
    """apps.tenants.current.current_site: the site whose schema the connection is in
    (raises NoSiteError in the public schema)."""
    return _lookup["current_site"]()


def site_cached(hostname: str):
    """apps.tenants.middleware.site_cached: the site this process holds for the host and
    how late its reload is, without a query; None when it holds none."""
    return _lookup["site_cached"](hostname)


def site_for_host(hostname: str):
    """apps.tenants.middleware.site_for_host: the host's site, looked up again."""
    return _lookup["site_for_host"](hostname)


def is_public(request: HttpRequest) -> bool:
    """Whether the request is on the operators' host (django-tenants' public schema)."""
    return getattr(request, "tenant", None) is not None and request.tenant.schema_name == get_public_schema_name()
