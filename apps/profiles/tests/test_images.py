"""Photo uploads: what comes out is always a fresh JPEG without metadata; everything
hostile is rejected with a stable code and a message for the member. No database."""

from __future__ import annotations

import io
import re
import warnings

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile, TemporaryUploadedFile
from django.utils import translation
from PIL import Image, ImageFile

from apps.common.exceptions import ApplicationError, api_exception_handler
from apps.profiles.images import ImageRejected, ProcessedImage, image_filename, process_upload
from apps.profiles.tests import fixtures_images as fx

JPEG_MAGIC = b"\xff\xd8\xff"


def _open(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.load()
    return img


def _rejected(data: bytes, **limits) -> ImageRejected:
    with pytest.raises(ImageRejected) as info:
        process_upload(io.BytesIO(data), **limits)
    return info.value


def _close(pixel, colour, tolerance: int = 40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour, strict=True))


def _assert_clean_jpeg(data: bytes) -> Image.Image:
    """A JPEG with no EXIF (so no GPS), ICC, XMP or comment."""
    assert data.startswith(JPEG_MAGIC)
    img = _open(data)
    assert img.format == "JPEG"
    assert img.mode == "RGB"
    assert len(img.getexif()) == 0
    assert len(img.getexif().get_ifd(0x8825)) == 0
    assert b"Exif" not in data
    assert not {"exif", "icc_profile", "xmp", "comment"} & img.info.keys()
    assert b"secret" not in data
    assert b"<script" not in data
    return img


@pytest.fixture
def no_decoding(monkeypatch):
    """Fails the test if any pixel data is decoded."""

    def load(self):
        raise AssertionError("pixels were decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", load)


# --- Good pictures ------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(fx.jpeg(), id="jpeg"),
        pytest.param(fx.jpeg(with_metadata=True), id="jpeg-with-exif-gps-icc-xmp-comment"),
        pytest.param(fx.mpo(), id="multi-picture-jpeg"),
        pytest.param(fx.png(), id="png"),
        pytest.param(fx.png_with_text_and_exif(), id="png-with-text-and-exif"),
        pytest.param(fx.webp(), id="webp"),
    ],
)
def test_good_pictures_come_out_as_clean_jpegs_with_a_square_thumbnail(data):
    result = process_upload(io.BytesIO(data))

    assert isinstance(result, ProcessedImage)
    assert (result.content_type, result.extension) == ("image/jpeg", "jpg")
    full = _assert_clean_jpeg(result.full)
    assert full.size == (result.width, result.height)
    assert full.info.get("progressive") == 1
    thumb = _assert_clean_jpeg(result.thumb)
    assert thumb.size == (result.thumb_width, result.thumb_height) == (400, 400)


def test_the_input_really_carries_the_metadata_that_must_be_removed():
    # Guards the test above: the phone JPEG has EXIF with GPS, ICC, XMP and a comment.
    data = fx.jpeg(with_metadata=True)
    img = Image.open(io.BytesIO(data))
    assert img.getexif()[fx.MAKE] == "Acme"
    assert img.getexif().get_ifd(0x8825)[fx.GPS_LATITUDE_REF] == "N"
    assert {"icc_profile", "xmp", "comment"} <= img.info.keys()
    assert b"Exif" in data
    assert b"secret" in data


def test_the_exif_orientation_is_applied_then_dropped():
    # A 300x200 photo whose EXIF says "turn 90 degrees clockwise to display"
    result = process_upload(io.BytesIO(fx.jpeg((300, 200), with_metadata=True, orientation=6)))
    # comes out upright, 200 wide and 300 high, with no orientation tag left
    full = _assert_clean_jpeg(result.full)
    assert (result.width, result.height) == full.size == (200, 300)
    # and the left half (red) of the stored picture is now on top
    assert _close(full.getpixel((100, 40)), fx.RED)
    assert _close(full.getpixel((100, 260)), fx.BLUE)


@pytest.mark.parametrize(
    ("orientation", "size", "red_at", "blue_at"),
    [
        (1, (300, 200), (40, 100), (260, 100)),
        (3, (300, 200), (260, 100), (40, 100)),
        (6, (200, 300), (100, 40), (100, 260)),
        (8, (200, 300), (100, 260), (100, 40)),
    ],
)
def test_each_orientation_turns_the_picture_the_right_way(orientation, size, red_at, blue_at):
    full = _open(process_upload(io.BytesIO(fx.jpeg((300, 200), orientation=orientation))).full)
    assert full.size == size
    assert _close(full.getpixel(red_at), fx.RED)
    assert _close(full.getpixel(blue_at), fx.BLUE)


@pytest.mark.parametrize("data", [fx.png_with_alpha(), fx.webp_with_alpha()], ids=["png", "webp"])
def test_transparency_is_flattened_onto_white(data):
    full = _open(process_upload(io.BytesIO(data)).full)
    assert _close(full.getpixel((60, 150)), (255, 255, 255), tolerance=10)
    assert _close(full.getpixel((240, 150)), fx.RED)


def test_16_bit_greyscale_keeps_its_brightness():
    full = _open(process_upload(io.BytesIO(fx.png_16bit_grey(value=100 * 256))).full)
    assert _close(full.getpixel((150, 150)), (100, 100, 100), tolerance=3)


@pytest.mark.parametrize(
    ("data", "max_side", "expected"),
    [
        pytest.param(fx.jpeg((1200, 800)), 500, (500, 333), id="jpeg-landscape"),
        pytest.param(fx.jpeg((800, 1200)), 500, (333, 500), id="jpeg-portrait"),
        pytest.param(fx.png((1000, 600)), 500, (500, 300), id="png"),
        pytest.param(fx.png((2400, 1200)), 2048, (2048, 1024), id="png-default-limit"),
        pytest.param(fx.jpeg((300, 200)), 500, (300, 200), id="small-is-not-enlarged"),
    ],
)
def test_the_longer_side_is_scaled_down_to_max_side(data, max_side, expected):
    result = process_upload(io.BytesIO(data), max_side=max_side)
    assert (result.width, result.height) == _open(result.full).size == expected


def test_the_thumbnail_is_a_centre_crop_of_thumb_side():
    # Red, green and blue thirds of a 600x200 picture: the centre square is all green
    result = process_upload(io.BytesIO(fx.png(img=fx.three_stripes((600, 200)))), thumb_side=120)
    thumb = _open(result.thumb)
    assert thumb.size == (result.thumb_width, result.thumb_height) == (120, 120)
    for xy in [(8, 8), (60, 60), (111, 111), (8, 111), (111, 8)]:
        assert _close(thumb.getpixel(xy), fx.GREEN), xy


@pytest.mark.parametrize("data", [fx.with_trailer(fx.png()), fx.with_trailer(fx.jpeg())], ids=["png+html", "jpeg+html"])
def test_nothing_of_the_original_bytes_survives(data):
    # A valid picture with an HTML payload appended after its end is accepted, but the
    # output is re-encoded, so the payload is gone.
    result = process_upload(io.BytesIO(data))
    _assert_clean_jpeg(result.full)
    _assert_clean_jpeg(result.thumb)
    assert fx.SCRIPT not in result.full


def test_the_file_name_and_content_type_are_ignored():
    png = SimpleUploadedFile("evil.html", fx.png(), content_type="text/html")
    assert process_upload(png).full.startswith(JPEG_MAGIC)
    tiff = SimpleUploadedFile("photo.jpg", fx.tiff(), content_type="image/jpeg")
    with pytest.raises(ImageRejected) as info:
        process_upload(tiff)
    assert info.value.code == "not_an_image"


def test_django_temporary_uploads_and_already_read_files_work():
    upload = TemporaryUploadedFile("photo.webp", "image/webp", 0, None)
    upload.write(fx.webp())
    upload.read()  # at the end, as after form validation
    try:
        assert process_upload(upload).width == 300
    finally:
        upload.close()


# --- Hostile and bad files ------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "code"),
    [
        pytest.param(fx.tiff(), "not_an_image", id="tiff"),
        pytest.param(fx.eps(), "not_an_image", id="eps"),
        pytest.param(fx.svg(), "not_an_image", id="svg"),
        pytest.param(fx.html(), "not_an_image", id="html"),
        pytest.param(fx.gif(), "not_an_image", id="gif"),
        pytest.param(fx.bmp(), "not_an_image", id="bmp"),
        pytest.param(fx.pdf(), "not_an_image", id="pdf"),
        pytest.param(fx.heic_like(), "not_an_image", id="heic"),
        pytest.param(b"", "not_an_image", id="empty"),
        pytest.param(b"RIFF\x10\x00\x00\x00WAVEfmt " + bytes(40), "not_an_image", id="riff-wave"),
        pytest.param(b"\x89PNG\r\n\x1a\n" + fx.SCRIPT, "not_an_image", id="png-magic-then-html"),
        # Passes the magic-byte check, then fails in the JPEG parser
        pytest.param(fx.html_with_jpeg_header(), "unreadable", id="jpeg-magic-then-html"),
        pytest.param(b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(40), "unreadable", id="fake-webp"),
        pytest.param(fx.truncated_jpeg(), "unreadable", id="truncated-jpeg"),
        pytest.param(fx.png(img=fx.noise((400, 400)))[:20_000], "unreadable", id="truncated-png"),
        pytest.param(fx.png((100, 100)), "too_small", id="tiny"),
        pytest.param(fx.jpeg((1000, 150)), "too_small", id="thin"),
        pytest.param(fx.png_bomb(), "too_many_pixels", id="png-bomb"),
        pytest.param(fx.jpeg_bomb(), "too_many_pixels", id="jpeg-bomb"),
    ],
)
def test_hostile_and_bad_files_are_rejected(data, code):
    error = _rejected(data)
    assert error.code == code
    assert isinstance(error.message, str)
    assert error.message


@pytest.mark.parametrize(
    "data",
    [
        fx.tiff(),
        fx.eps(),
        fx.svg(),
        fx.html(),
        fx.gif(),
        fx.bmp(),
        fx.pdf(),
        fx.heic_like(),
        b"RIFF\x10\x00\x00\x00WAVEfmt " + bytes(40),
    ],
    ids=["tiff", "eps", "svg", "html", "gif", "bmp", "pdf", "heic", "riff-wave"],
)
def test_other_formats_never_reach_pillow(monkeypatch, data):
    # Pillow would hand EPS to Ghostscript; such files must be refused on their magic bytes
    def open_(*args, **kwargs):
        raise AssertionError("Pillow was asked to open it")

    monkeypatch.setattr(Image, "open", open_)
    assert _rejected(data).code == "not_an_image"


@pytest.mark.parametrize("name", ["photo.jpg", "photo.png"])
def test_renamed_files_are_judged_by_their_bytes(name):
    for data in [fx.html(), fx.html_with_jpeg_header(), fx.tiff(), fx.eps(), fx.svg(), fx.gif()]:
        with pytest.raises(ImageRejected):
            process_upload(SimpleUploadedFile(name, data, content_type="image/jpeg"))


@pytest.mark.parametrize("bomb", [fx.png_bomb(), fx.jpeg_bomb()], ids=["png", "jpeg"])
def test_bombs_are_rejected_without_decoding(bomb, no_decoding):
    assert _rejected(bomb).code == "too_many_pixels"


def test_the_pixel_limit_holds_without_pillows_own_check(monkeypatch, no_decoding):
    # Even if Pillow's bomb check were off, the declared size is checked before decoding
    monkeypatch.setattr(Image, "_decompression_bomb_check", lambda size, **kwargs: None)
    assert _rejected(fx.png_bomb(7000, 6000)).code == "too_many_pixels"
    assert _rejected(fx.png((500, 500)), max_pixels=200_000).code == "too_many_pixels"


def test_pillows_bomb_warning_becomes_a_rejection_not_a_warning(no_decoding):
    # 42 megapixels: above the 40 MP limit, below twice it (where Pillow only warns)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _rejected(fx.png_bomb(7000, 6000)).code == "too_many_pixels"
    assert not [w for w in caught if issubclass(w.category, Image.DecompressionBombWarning)]


def test_pillows_global_limit_is_restored(monkeypatch):
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 123_456_789)
    process_upload(io.BytesIO(fx.png()))
    _rejected(fx.png_bomb())
    assert Image.MAX_IMAGE_PIXELS == 123_456_789


def test_the_limits_are_inclusive():
    data = fx.jpeg((300, 200))
    assert process_upload(io.BytesIO(data), max_bytes=len(data)).width == 300
    assert _rejected(data, max_bytes=len(data) - 1).code == "too_large"
    assert process_upload(io.BytesIO(fx.png((500, 400))), max_pixels=200_000).width == 500
    assert process_upload(io.BytesIO(fx.png((200, 200)))).width == 200


def test_an_oversized_file_is_not_read_beyond_the_limit():
    stream = fx.CountingStream()  # endless, starts like a JPEG
    with pytest.raises(ImageRejected) as info:
        process_upload(stream, max_bytes=1000)
    assert info.value.code == "too_large"
    assert stream.read_bytes <= 1001


def test_an_oversized_django_upload_is_too_large():
    upload = SimpleUploadedFile("photo.jpg", fx.jpeg(), content_type="image/jpeg")
    with pytest.raises(ImageRejected) as info:
        process_upload(upload, max_bytes=upload.size - 1)
    assert info.value.code == "too_large"


# --- Messages -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "limits", "code", "text"),
    [
        (bytes(10 * 1024 * 1024 + 1), {}, "too_large", "The maximum is 10 MB."),
        (fx.png_bomb(), {}, "too_many_pixels", "The maximum is 40 megapixels."),
        (fx.png((100, 100)), {}, "too_small", "at least 200 pixels wide and high."),
        (fx.gif(), {}, "not_an_image", "Upload a JPEG, PNG or WebP photo."),
        (fx.truncated_jpeg(), {}, "unreadable", "Try another photo."),
    ],
)
def test_messages_are_plain_text_for_members(data, limits, code, text):
    error = _rejected(data, **limits)
    assert error.code == code
    assert type(error.message) is str  # translated now, not a lazy proxy
    assert text in error.message
    assert str(error) == error.message
    assert not re.search(r"%\(|PIL|Pillow|Traceback|decompression|\bbytes\b|Error", error.message)


@pytest.mark.parametrize(
    "data", [bytes(10 * 1024 * 1024 + 1), fx.png_bomb(), fx.png((100, 100)), fx.gif(), fx.truncated_jpeg()]
)
def test_messages_go_through_gettext_when_raised(monkeypatch, data):
    monkeypatch.setattr("apps.profiles.images._", lambda text: "[fr] " + text)
    with translation.override("fr"):
        error = _rejected(data)
    assert error.message.startswith("[fr] This ")


def test_a_rejection_is_an_api_error():
    error = _rejected(fx.svg())
    assert isinstance(error, ApplicationError)
    response = api_exception_handler(error, {})
    assert response.status_code == 400
    assert response.data == {"error": {"code": "not_an_image", "message": error.message}}


# --- File names -----------------------------------------------------------------------


def test_file_names_are_random_and_unguessable():
    names = {image_filename() for _ in range(50)}
    assert len(names) == 50
    for name in names:
        assert re.fullmatch(r"[0-9a-f]{32}\.jpg", name)
    assert re.fullmatch(r"[0-9a-f]{32}\.webp", image_filename(".webp"))


@pytest.mark.parametrize("extension", ["", "../jpg", "jpg/../../x", "jp g", "jpg\x00"])
def test_file_names_refuse_odd_extensions(extension):
    with pytest.raises(ValueError, match="extension"):
        image_filename(extension)
