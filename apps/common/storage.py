"""Media storage whose paths start with the site's schema name, so one site's files
can never be addressed through another site's paths."""

from django.core.files.storage import FileSystemStorage
from django.db import connection


def _with_site_prefix(name: str) -> str:
    schema = getattr(connection, "schema_name", "public")
    return name if name.startswith(f"{schema}/") else f"{schema}/{name}"


class SiteFileSystemStorage(FileSystemStorage):
    def generate_filename(self, filename: str) -> str:
        return _with_site_prefix(super().generate_filename(filename))

    def save(self, name, content, max_length=None):
        return super().save(_with_site_prefix(name), content, max_length=max_length)
