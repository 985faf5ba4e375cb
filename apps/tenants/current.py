"""The site of the code that is running: the one whose schema the database connection is
in. Everything a site owns is read through this, so it has one answer and one failure.

The failure is `NoSiteError`, raised in the public schema (the operators' host, beat's
tasks before they enter a site, a command without `tenant_context`). Reaching site code
there is a mistake of the caller, never something a member's input can cause, so it is no
`ApplicationError`: it fails loudly instead of writing a notice, a payment or an event
that belongs to no site. The one caller that also serves the public schema (staff mail,
apps.accounts.mail) catches it by name."""

from __future__ import annotations

from django.db import connection
from django_tenants.utils import get_public_schema_name

from apps.tenants.models import Site


class NoSiteError(RuntimeError):
    """Code that works for one site ran outside every site's schema."""


def current_site() -> Site:
    """The site whose schema the connection is in. Free when the schema was set with the
    site (the site middleware, `tenant_context`); under django-tenants' `schema_context`,
    which knows only the schema's name, it costs one query. Raises NoSiteError in the
    public schema and for a schema no site has."""
    schema = connection.schema_name
    if schema == get_public_schema_name():
        raise NoSiteError("this needs a site's schema, and the connection is in the public schema")
    tenant = getattr(connection, "tenant", None)
    if isinstance(tenant, Site) and tenant.schema_name == schema:
        return tenant
    site = Site.objects.filter(schema_name=schema).first()
    if site is None:
        raise NoSiteError(f"no site has the schema {schema!r}")
    return site
