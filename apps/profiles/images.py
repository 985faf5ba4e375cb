"""Safe processing of members' photo uploads (profile and chat photos).

Every upload is hostile until proven otherwise. `process_upload` reads a bounded number
of bytes, decides the type from the magic bytes alone (never the file name or the
client's content type), refuses anything but JPEG, PNG and WebP, checks the declared
pixel count before a single pixel is decoded, decodes, and re-encodes a fresh JPEG plus
a square thumbnail. Nothing of the original file survives: no EXIF (GPS), ICC, XMP,
comments, trailing data or polyglot payloads.
"""

from __future__ import annotations

import io
import math
import struct
import threading
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

from django.utils import formats
from django.utils.translation import gettext as _
from PIL import Image, ImageOps, UnidentifiedImageError

from apps.common.exceptions import ApplicationError

MB = 1024 * 1024

JPEG_QUALITY = 85
THUMB_QUALITY = 80

# Magic bytes -> the Pillow format to open with, and the formats Pillow may then report.
# Cameras write multi-picture JPEGs, which Pillow reports as "MPO" (its first frame is
# the photo).
_JPEG_MAGIC = b"\xff\xd8\xff"
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_ACCEPTED_FORMATS = {"JPEG": {"JPEG", "MPO"}, "PNG": {"PNG"}, "WEBP": {"WEBP"}}
# The same, as the content types the API's schema names for a photo field.
PHOTO_TYPES = "image/jpeg, image/png, image/webp"

# What a malformed file can make Pillow raise while identifying or decoding it.
_DECODE_ERRORS = (OSError, ValueError, SyntaxError, EOFError, IndexError, struct.error)

# Pillow's decompression-bomb limit is a module global; it is set to the caller's limit
# only while Image.open parses the headers (cheap), under this lock, and restored after.
_pil_limit_lock = threading.Lock()


class ImageRejected(ApplicationError):
    """The upload is not an acceptable photo. `code` is stable, `message` is translated
    text for the member. An ApplicationError, so the API renders it as
    {"error": {"code", "message"}} with status 400."""

    def __init__(self, code: str, message: str):
        super().__init__(code, message)


@dataclass(frozen=True)
class ProcessedImage:
    full: bytes
    thumb: bytes
    width: int
    height: int
    thumb_width: int
    thumb_height: int
    content_type: str = "image/jpeg"
    extension: str = "jpg"


def process_upload(
    file_obj,
    *,
    max_bytes: int = 10 * MB,
    max_pixels: int = 40_000_000,
    min_side: int = 200,
    max_side: int = 2048,
    thumb_side: int = 400,
) -> ProcessedImage:
    """Validate an uploaded photo and return it re-encoded as JPEG (longer side at most
    `max_side`) with a `thumb_side` square thumbnail. Raises ImageRejected with code
    too_large, not_an_image, too_many_pixels, too_small or unreadable."""
    data = _read_limited(file_obj, max_bytes + 1)
    if len(data) > max_bytes:
        raise _rejected("too_large", max_bytes=max_bytes)

    detected = _sniff(data)
    if detected is None:
        raise _rejected("not_an_image")

    img = _open(data, detected, max_pixels)
    try:
        width, height = img.size
        if width * height > max_pixels:
            raise _rejected("too_many_pixels", max_pixels=max_pixels)
        if min(width, height) < min_side:
            raise _rejected("too_small", min_side=min_side)
        try:
            if detected == "JPEG":
                # Let libjpeg decode at 1/2, 1/4 or 1/8 scale when the result is still
                # at least as large as the output: less CPU and memory for big photos.
                img.draft(None, _fit_within(width, height, max_side, rounding=math.ceil))
            img.load()
            full = _rgb(_oriented(img))
            if max(full.size) > max_side:
                size = _fit_within(*full.size, max_side, rounding=round)
                full = full.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
            thumb = ImageOps.fit(full, (thumb_side, thumb_side), Image.Resampling.LANCZOS, centering=(0.5, 0.5))
            full_bytes = _jpeg(full, JPEG_QUALITY)
            thumb_bytes = _jpeg(thumb, THUMB_QUALITY)
        except Image.DecompressionBombError:
            raise _rejected("too_many_pixels", max_pixels=max_pixels) from None
        except _DECODE_ERRORS:
            raise _rejected("unreadable") from None
    finally:
        img.close()

    return ProcessedImage(
        full=full_bytes,
        thumb=thumb_bytes,
        width=full.width,
        height=full.height,
        thumb_width=thumb.width,
        thumb_height=thumb.height,
    )


def image_filename(extension: str = "jpg") -> str:
    """A random, unguessable file name (uuid4 hex) with the given extension."""
    extension = extension.lstrip(".")
    if not (extension.isascii() and extension.isalnum()):
        raise ValueError(f"Invalid file extension: {extension!r}")
    return f"{uuid.uuid4().hex}.{extension.lower()}"


# --- Steps ---------------------------------------------------------------------------


def _read_limited(file_obj, limit: int) -> bytes:
    """At most `limit` bytes from the start of a file object (Django UploadedFile,
    BytesIO, an open file), never more, whatever the object claims its size is."""
    seek = getattr(file_obj, "seek", None)
    if callable(seek):
        with suppress(OSError, ValueError):  # A stream that cannot seek: read from where it is.
            seek(0)
    chunks: list[bytes] = []
    remaining = limit
    while remaining > 0:
        chunk = file_obj.read(min(remaining, MB))
        if not chunk:
            break
        if not isinstance(chunk, (bytes, bytearray)):
            raise TypeError("process_upload needs a file opened in binary mode")
        chunks.append(bytes(chunk))
        remaining -= len(chunk)
    return b"".join(chunks)


def _sniff(data: bytes) -> str | None:
    """The Pillow format name from the magic bytes, or None for anything else."""
    if data.startswith(_JPEG_MAGIC):
        return "JPEG"
    if data.startswith(_PNG_MAGIC):
        return "PNG"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    return None


def _open(data: bytes, detected: str, max_pixels: int) -> Image.Image:
    """Identify the picture with only the detected format's plugin. Lazy: reads the
    headers, decodes no pixels."""
    try:
        with _pil_pixel_limit(max_pixels):
            img = Image.open(io.BytesIO(data), formats=[detected])
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise _rejected("too_many_pixels", max_pixels=max_pixels) from None
    except UnidentifiedImageError:
        raise _rejected("not_an_image") from None
    except _DECODE_ERRORS:
        raise _rejected("unreadable") from None
    if img.format not in _ACCEPTED_FORMATS[detected]:
        img.close()
        raise _rejected("not_an_image")
    return img


@contextmanager
def _pil_pixel_limit(max_pixels: int) -> Iterator[None]:
    """Pillow's own bomb check at the caller's limit, its warning made an error."""
    with _pil_limit_lock, warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        previous = Image.MAX_IMAGE_PIXELS
        Image.MAX_IMAGE_PIXELS = max_pixels
        try:
            yield
        finally:
            Image.MAX_IMAGE_PIXELS = previous


def _fit_within(width: int, height: int, side: int, *, rounding) -> tuple[int, int]:
    """The size with the longer side at most `side`, keeping the aspect ratio."""
    scale = min(1.0, side / max(width, height))
    return max(1, int(rounding(width * scale))), max(1, int(rounding(height * scale)))


def _oriented(img: Image.Image) -> Image.Image:
    """The picture turned the way the camera's EXIF orientation says."""
    # Broken EXIF does not make a broken photo: then it is kept as stored.
    with suppress(*_DECODE_ERRORS, KeyError, TypeError):
        ImageOps.exif_transpose(img, in_place=True)  # In place: no copy of a big picture.
    return img


def _rgb(img: Image.Image) -> Image.Image:
    """RGB, with any transparency flattened onto white."""
    if img.mode.startswith("I"):
        # 16-bit greyscale: scale to 8 bits (a plain conversion would clip to white).
        return img.convert("I").point(lambda value: value / 256).convert("L").convert("RGB")
    if img.mode in ("RGBA", "LA", "PA", "RGBa", "La") or "transparency" in img.info:
        rgba = img.convert("RGBA")
        flat = Image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        return flat
    return img if img.mode == "RGB" else img.convert("RGB")


def _jpeg(img: Image.Image, quality: int) -> bytes:
    """A fresh JPEG with no metadata. Pillow copies `info` between derived images and
    writes info["comment"] on save, so it is emptied; exif, icc_profile and xmp are never
    passed."""
    img.info = {}
    out = io.BytesIO()
    img.save(out, format="JPEG", quality=quality, optimize=True, progressive=True)
    return out.getvalue()


def _rejected(code: str, *, max_bytes: int = 0, max_pixels: int = 0, min_side: int = 0) -> ImageRejected:
    if code == "too_large":
        message = _("This picture is too large. The maximum is %(max)s MB.") % {"max": _number(max_bytes / MB)}
    elif code == "too_many_pixels":
        message = _("This picture has too many pixels. The maximum is %(max)s megapixels.") % {
            "max": _number(max_pixels / 1_000_000)
        }
    elif code == "too_small":
        message = _("This picture is too small. It must be at least %(min)s pixels wide and high.") % {"min": min_side}
    elif code == "not_an_image":
        message = _("This file is not a picture. Upload a JPEG, PNG or WebP photo.")
    else:
        code = "unreadable"
        message = _("This picture could not be read. Try another photo.")
    return ImageRejected(code, message)


def _number(value: float) -> str:
    """10 -> "10", 9.5 -> "9.5" (localized), small test limits -> "0.01"."""
    if value == int(value):
        return formats.number_format(int(value))
    return formats.number_format(value, decimal_pos=1 if value >= 1 else 2)
