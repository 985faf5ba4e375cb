"""Media storage whose paths start with the site's schema name, so one site's files
can never be addressed through another site's paths; static and public media URLs from
the site's CDN when it has one."""

from urllib.parse import urlsplit

from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.files.storage import FileSystemStorage
from django.db import connection
from whitenoise.storage import CompressedManifestStaticFilesStorage, CompressedStaticFilesStorage


def _with_site_prefix(name: str) -> str:
    schema = getattr(connection, "schema_name", "public")
    return name if name.startswith(f"{schema}/") else f"{schema}/{name}"


class SiteFileSystemStorage(FileSystemStorage):
    def generate_filename(self, filename: str) -> str:
        return _with_site_prefix(super().generate_filename(filename))

    def save(self, name, content, max_length=None):
        return super().save(_with_site_prefix(name), content, max_length=max_length)


class PrivateSiteStorage(SiteFileSystemStorage):
    """Files no member is ever served (verification selfies): kept outside MEDIA_ROOT
    (settings PRIVATE_MEDIA_ROOT), so no media route or web server reaches them, and
    without a URL; staff see them through a permission-checked view."""

    def url(self, name):
        raise ValueError("private files have no URL; serve them through a permission-checked view")


def cdn_prefix() -> str:
    """The current site's CDN address (spec §3 settings cdn_prefix, without a trailing
    slash), or "" when it has none or there is no site (the operators' host, a task
    outside any site)."""
    return (getattr(getattr(connection, "tenant", None), "cdn_prefix", "") or "").rstrip("/")


def cdn_origin(prefix: str) -> str:
    """scheme://host[:port] of a CDN prefix (what a CSP source names), or ""."""
    parts = urlsplit(prefix or "")
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def cdn_url(url: str) -> str:
    """`url` (a path of this site: "/static/...", "/media/...") from the site's CDN when it
    has one; absolute addresses (S3, a custom media domain) are left as they are.

    Only for files anyone may fetch: hashed static assets and approved media. A member's
    own pending photos and chat photos stay on the site's host, where the member's session
    cookie reaches the view that checks them (a CDN is another origin and gets no cookie)."""
    prefix = cdn_prefix()
    if not prefix or not url.startswith("/") or url.startswith("//"):
        return url
    return prefix + url


class CdnStaticFilesMixin:
    """Static asset URLs from the site's CDN. Their names carry a content hash (esbuild's
    files, the manifest storage in production), so a CDN may keep them for ever."""

    def url(self, name):
        return cdn_url(super().url(name))

    def site_url(self, name):
        """The file's URL on the site's own host, never the CDN's."""
        return super().url(name)


def site_static_url(name: str) -> str:
    """A static file's URL on the site's own host even when the site has a CDN: for what a
    browser only takes from the page's origin, such as an SVG sprite that `<use href>`
    references (a use element never loads another origin's file)."""
    return getattr(staticfiles_storage, "site_url", staticfiles_storage.url)(name)


class SiteStaticFilesStorage(CdnStaticFilesMixin, CompressedStaticFilesStorage):
    pass


class SiteManifestStaticFilesStorage(CdnStaticFilesMixin, CompressedManifestStaticFilesStorage):
    pass
