"""The video landers' loop: a short, muted slideshow made from the site's own approved
photos with slow zooms and cross-fades, encoded twice (WebM/VP9 for most browsers,
MP4/H.264 for the others) with PyAV, the FFmpeg libraries its wheel bundles. No audio
track: the landers play it muted anyway.

`lander_video_make(site)` runs in the site's schema, stores the files under the site's
media prefix (<schema>/landers/) and replaces the site's previous video. A site without
a video shows its video landers with a still/slideshow fallback (apps.landers.views)."""

from __future__ import annotations

import io
import secrets
from fractions import Fraction

from django.core.files.base import ContentFile
from django.db import transaction
from django_tenants.utils import tenant_context
from PIL import Image

from apps.landers.models import LanderVideo
from apps.tenants.models import Site

SIDE = 480
FPS = 24
SLIDES = 4
SLIDE_SECONDS = 2.0
FADE_SECONDS = 0.5
ZOOM = 0.12  # how far each slide zooms in over its time


class NoPhotos(Exception):
    """The site has no approved photos to make a video from."""


def _source_profiles():
    """Visible profiles with an approved main photo, newest first: the video's sources.
    Runs in the site's schema."""
    from apps.profiles.models import PhotoStatus
    from apps.profiles.visibility import profiles_visible_to

    return (
        profiles_visible_to(None)
        .filter(main_photo__status=PhotoStatus.ACTIVE)
        .exclude(main_photo__image="")
        .select_related("main_photo")
        .order_by("-created", "-pk")
    )


def site_has_photos(site: Site) -> bool:
    """Whether the site has photos to make a video from (else lander_video_make raises
    NoPhotos)."""
    with tenant_context(site):
        return _source_profiles().exists()


def _source_photos(limit: int) -> list[Image.Image]:
    """Up to `limit` approved main photos of visible profiles, newest first, as squares
    a little larger than the video (room for the zoom). Runs in the site's schema."""
    side = round(SIDE * (1 + ZOOM))
    pictures: list[Image.Image] = []
    for profile in _source_profiles()[: limit * 2]:
        try:
            with profile.main_photo.image.open("rb") as handle:
                picture = Image.open(io.BytesIO(handle.read()))
                picture.load()
        except (OSError, ValueError):
            continue  # a missing file: take the next profile
        pictures.append(_square(picture.convert("RGB"), side))
        if len(pictures) == limit:
            break
    return pictures


def _square(picture: Image.Image, side: int) -> Image.Image:
    width, height = picture.size
    edge = min(width, height)
    left, top = (width - edge) // 2, (height - edge) // 2
    return picture.crop((left, top, left + edge, top + edge)).resize((side, side), Image.Resampling.LANCZOS)


def _zoomed(picture: Image.Image, progress: float) -> Image.Image:
    """The slide at `progress` (0..1 of its time): a centred crop that narrows slowly."""
    source = picture.width
    crop = source / (1 + ZOOM * progress)
    offset = (source - crop) / 2
    return picture.resize((SIDE, SIDE), Image.Resampling.BILINEAR, box=(offset, offset, offset + crop, offset + crop))


def slideshow_frames(pictures: list[Image.Image]):
    """Every frame of the loop: each slide zooms for SLIDE_SECONDS and fades into the
    next during its last FADE_SECONDS; the last fades into the first, so it loops."""
    per_slide = round(SLIDE_SECONDS * FPS)
    fade = round(FADE_SECONDS * FPS)
    count = len(pictures)
    for index in range(count):
        current, following = pictures[index], pictures[(index + 1) % count]
        for step in range(per_slide):
            frame = _zoomed(current, step / per_slide)
            into_fade = step - (per_slide - fade)
            if into_fade >= 0:
                # The next slide starts where its own first frames will continue.
                frame = Image.blend(frame, _zoomed(following, 0.0), (into_fade + 1) / (fade + 1))
            yield frame


def _encode(pictures: list[Image.Image], *, container: str, codec: str, options: dict) -> bytes:
    import av

    out = io.BytesIO()
    with av.open(out, mode="w", format=container) as output:
        stream = output.add_stream(codec, rate=FPS, options=options)
        stream.width = stream.height = SIDE
        stream.pix_fmt = "yuv420p"
        stream.time_base = Fraction(1, FPS)
        for number, picture in enumerate(slideshow_frames(pictures)):
            frame = av.VideoFrame.from_image(picture)
            frame.pts = number
            frame.time_base = Fraction(1, FPS)
            for packet in stream.encode(frame):
                output.mux(packet)
        for packet in stream.encode():
            output.mux(packet)
    return out.getvalue()


def encode_webm(pictures: list[Image.Image]) -> bytes:
    # Constant quality (crf with no bitrate cap); "good" with a high cpu-used is quick.
    options = {"crf": "36", "b": "0", "deadline": "good", "cpu-used": "5", "row-mt": "1"}
    return _encode(pictures, container="webm", codec="libvpx-vp9", options=options)


def encode_mp4(pictures: list[Image.Image]) -> bytes:
    # Baseline-compatible main profile, the index at the start so playback starts early.
    options = {"crf": "27", "preset": "medium", "profile": "main", "movflags": "+faststart"}
    return _encode(pictures, container="mp4", codec="libx264", options=options)


def poster_jpeg(pictures: list[Image.Image]) -> bytes:
    out = io.BytesIO()
    _zoomed(pictures[0], 0.0).save(out, format="JPEG", quality=80, optimize=True, progressive=True)
    return out.getvalue()


def lander_video_make(*, site: Site, slides: int = SLIDES) -> LanderVideo:
    """Make (or make again) the site's lander video from its approved photos. Raises
    NoPhotos when the site has none. The old files are deleted after the new row is
    saved."""
    with tenant_context(site):
        pictures = _source_photos(slides)
        if not pictures:
            raise NoPhotos(site.pk)
        webm, mp4, poster = encode_webm(pictures), encode_mp4(pictures), poster_jpeg(pictures)
        name = f"video-{secrets.token_hex(6)}"
        with transaction.atomic():
            video = LanderVideo.objects.select_for_update().filter(site=site).first() or LanderVideo(site=site)
            old = [field.name for field in video.files if field]
            video.slides, video.slide_seconds = len(pictures), SLIDE_SECONDS
            video.webm.save(f"{name}.webm", ContentFile(webm), save=False)
            video.mp4.save(f"{name}.mp4", ContentFile(mp4), save=False)
            video.poster.save(f"{name}.jpg", ContentFile(poster), save=False)
            video.width = video.height = SIDE
            video.save()
        _files_delete(old)
        return video


def lander_video_delete(*, site: Site) -> None:
    """Remove the site's video and its files (its landers fall back to the slideshow)."""
    with tenant_context(site):
        video = LanderVideo.objects.filter(site=site).first()
        if video is None:
            return
        paths = [field.name for field in video.files if field]
        video.delete()
        _files_delete(paths)


def _files_delete(paths: list[str]) -> None:
    storage = LanderVideo._meta.get_field("webm").storage
    for path in paths:
        storage.delete(path)
