"""Members, logged-in clients and uploads for the profile tests."""

import io

from PIL import Image

from apps.accounts.tests.helpers_settings import PASSWORD, logged_in, member_create  # noqa: F401


def jpeg_upload(width=640, height=480, colour=(200, 80, 120), name="me.jpg") -> io.BytesIO:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, format="JPEG", quality=90)
    buffer.seek(0)
    buffer.name = name
    return buffer
