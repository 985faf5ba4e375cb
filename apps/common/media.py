"""Serving a site's private media files from the development and test servers
(production serves media from its storage): the path checks and the file response the
member-checked views share (apps.profiles photos, apps.chat photos)."""

import mimetypes

from django.core.files.storage import default_storage
from django.db import connection
from django.http import FileResponse, Http404


def media_path_check(path: str, folder: str, *, schema: str | None = None) -> None:
    """404 unless `path` lies under this site's `<schema>/<folder>/` with no way out: no
    `..`, no empty or `.` segment (`//`), no NUL or other control character."""
    parts = path.split("/")
    if (
        not path.startswith(f"{schema or connection.schema_name}/{folder}/")
        or any(part in ("", ".", "..") for part in parts)
        or any(ord(char) < 32 or char in "\\\x7f" for char in path)
    ):
        raise Http404


def media_file_response(path: str, *, cache_control: str) -> FileResponse:
    """The stored file at `path` (404 when it is not there), typed by its name."""
    try:
        handle = default_storage.open(path, "rb")
    except (FileNotFoundError, OSError) as error:
        raise Http404 from error
    response = FileResponse(handle, content_type=mimetypes.guess_type(path)[0] or "application/octet-stream")
    response["Cache-Control"] = cache_control
    return response
