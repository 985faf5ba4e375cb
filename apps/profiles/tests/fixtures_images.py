"""Benign and hostile uploads, generated in memory with Pillow (no binary files in the
repository)."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image, ImageDraw

MAKE = 0x010F
MODEL = 0x0110
ORIENTATION = 0x0112
GPS_IFD = 0x8825
GPS_LATITUDE_REF, GPS_LATITUDE, GPS_LONGITUDE_REF, GPS_LONGITUDE = 1, 2, 3, 4

RED = (255, 0, 0)
GREEN = (0, 255, 0)
BLUE = (0, 0, 255)

SCRIPT = b"<html><body><script>alert(1)</script></body></html>"


def _encode(img: Image.Image, fmt: str, **params) -> bytes:
    out = io.BytesIO()
    img.save(out, format=fmt, **params)
    return out.getvalue()


def two_halves(size: tuple[int, int], left=RED, right=BLUE, mode: str = "RGB") -> Image.Image:
    """Left half one colour, right half another: shows which way a picture was turned."""
    img = Image.new(mode, size, right)
    ImageDraw.Draw(img).rectangle((0, 0, size[0] // 2 - 1, size[1] - 1), fill=left)
    return img


def three_stripes(size: tuple[int, int]) -> Image.Image:
    """Red, green and blue vertical thirds: shows where a thumbnail was cropped."""
    img = Image.new("RGB", size, GREEN)
    draw = ImageDraw.Draw(img)
    third = size[0] // 3
    draw.rectangle((0, 0, third - 1, size[1] - 1), fill=RED)
    draw.rectangle((size[0] - third, 0, size[0] - 1, size[1] - 1), fill=BLUE)
    return img


def noise(size: tuple[int, int]) -> Image.Image:
    """Hard-to-compress content, so a JPEG of it has a long scan to truncate."""
    return Image.merge("RGB", [Image.effect_noise(size, 80) for _ in range(3)])


def phone_exif(orientation: int = 1) -> Image.Exif:
    """What a phone writes: camera make and model, orientation and a GPS position."""
    exif = Image.Exif()
    exif[MAKE] = "Acme"
    exif[MODEL] = "Phone X"
    exif[ORIENTATION] = orientation
    gps = exif.get_ifd(GPS_IFD)
    gps[GPS_LATITUDE_REF] = "N"
    gps[GPS_LATITUDE] = (52.0, 22.0, 1.5)
    gps[GPS_LONGITUDE_REF] = "E"
    gps[GPS_LONGITUDE] = (4.0, 53.0, 0.25)
    return exif


def jpeg(
    size: tuple[int, int] = (300, 200),
    *,
    img: Image.Image | None = None,
    orientation: int | None = None,
    with_metadata: bool = False,
    quality: int = 90,
) -> bytes:
    """A JPEG; with_metadata adds a phone's EXIF (GPS, make, model), an ICC profile, XMP
    and a comment."""
    img = img if img is not None else two_halves(size)
    params: dict = {"quality": quality}
    if with_metadata or orientation is not None:
        params["exif"] = phone_exif(orientation or 1).tobytes()
    if with_metadata:
        params["icc_profile"] = b"fake-icc-profile-with-a-secret"
        params["xmp"] = b'<x:xmpmeta xmlns:x="adobe:ns:meta/">secret-xmp</x:xmpmeta>'
        params["comment"] = b"secret-comment <script>alert(1)</script>"
    return _encode(img, "JPEG", **params)


def mpo(size: tuple[int, int] = (300, 200)) -> bytes:
    """A multi-picture JPEG, as some cameras write; Pillow reports it as "MPO"."""
    first = two_halves(size)
    second = two_halves(size, left=GREEN, right=GREEN)
    return _encode(first, "MPO", save_all=True, append_images=[second])


def png(size: tuple[int, int] = (300, 300), *, img: Image.Image | None = None, **params) -> bytes:
    return _encode(img if img is not None else two_halves(size), "PNG", **params)


def png_with_alpha(size: tuple[int, int] = (300, 300)) -> bytes:
    """Left half fully transparent (transparent black), right half opaque red."""
    return png(img=two_halves(size, left=(0, 0, 0, 0), right=(255, 0, 0, 255), mode="RGBA"))


def png_16bit_grey(size: tuple[int, int] = (300, 300), value: int = 100 * 256) -> bytes:
    """16-bit greyscale: the value 100*256 is the 8-bit grey 100."""
    return png(img=Image.new("I;16", size, value))


def png_with_text_and_exif(size: tuple[int, int] = (300, 300)) -> bytes:
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "secret-png-text")
    return png(size, pnginfo=info, exif=phone_exif().tobytes())


def webp(size: tuple[int, int] = (300, 300)) -> bytes:
    return _encode(two_halves(size), "WEBP", quality=90)


def webp_with_alpha(size: tuple[int, int] = (300, 300)) -> bytes:
    return _encode(two_halves(size, left=(0, 0, 0, 0), right=(255, 0, 0, 255), mode="RGBA"), "WEBP", lossless=True)


def gif(size: tuple[int, int] = (300, 300)) -> bytes:
    return _encode(two_halves(size), "GIF")


def bmp(size: tuple[int, int] = (300, 300)) -> bytes:
    return _encode(two_halves(size), "BMP")


def tiff(size: tuple[int, int] = (300, 300)) -> bytes:
    return _encode(two_halves(size), "TIFF")


def pdf(size: tuple[int, int] = (300, 300)) -> bytes:
    return _encode(two_halves(size), "PDF")


def eps() -> bytes:
    """PostScript is a program (Ghostscript runs it); it must never reach a decoder."""
    return (
        b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 300 300\n"
        b"(%pipe%id) (w) file\nnewpath 0 0 moveto 300 300 lineto stroke\nshowpage\n%%EOF\n"
    )


def svg() -> bytes:
    return (
        b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300">'
        b'<script>alert(1)</script><rect width="300" height="300" fill="red"/></svg>'
    )


def html() -> bytes:
    return b"<!DOCTYPE html>\n" + SCRIPT


def html_with_jpeg_header() -> bytes:
    """A polyglot: JPEG magic bytes, then HTML."""
    return b"\xff\xd8\xff\xe0" + SCRIPT


def heic_like() -> bytes:
    """The start of an HEIC file (ISO BMFF "ftyp" box); not accepted."""
    return b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 64


def with_trailer(data: bytes, trailer: bytes = SCRIPT) -> bytes:
    """A valid picture with a payload appended after its end."""
    return data + trailer


def truncated_jpeg(size: tuple[int, int] = (400, 400)) -> bytes:
    data = jpeg(img=noise(size))
    return data[: len(data) // 2]


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png_bomb(width: int = 30_000, height: int = 30_000) -> bytes:
    """A small valid PNG whose IHDR is patched to declare width x height (CRC fixed), so
    the header claims far more pixels than the file holds: decoding it would allocate
    width*height*3 bytes."""
    data = png((8, 8))
    assert data[12:16] == b"IHDR"
    ihdr = struct.pack(">II", width, height) + data[24:29]
    return data[:8] + _chunk(b"IHDR", ihdr) + data[33:]


def jpeg_bomb(width: int = 65_000, height: int = 65_000) -> bytes:
    """A small JPEG whose SOF marker is patched to declare width x height."""
    data = bytearray(jpeg((16, 16)))
    for sof in (b"\xff\xc0", b"\xff\xc2"):
        at = data.find(sof)
        if at != -1:
            # FF Cx, length (2), precision (1), height (2), width (2)
            data[at + 5 : at + 9] = struct.pack(">HH", height, width)
            return bytes(data)
    raise AssertionError("no SOF marker")


class CountingStream:
    """A non-seekable stream of endless bytes (starting like a JPEG) that counts what
    was read from it."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def read(self, size: int = -1) -> bytes:
        assert size is not None and size >= 0, "must never read without a limit"
        self.read_bytes += size
        return (b"\xff\xd8\xff\xe0" + b"\x00" * size)[:size]
