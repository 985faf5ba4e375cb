"""The video landers' loop: made from the site's approved photos (PyAV), served from the
site's media with byte ranges, captioned in the site's languages (WebVTT from gettext),
and a still/slideshow fallback for a site without one."""

import io

import av
import pytest
from django.core.management import call_command

from apps.landers.models import LanderVideo
from apps.landers.tests.helpers import lander_profiles
from apps.landers.video import SIDE, NoPhotos, lander_video_delete, lander_video_make
from apps.profiles.services.demo import demo_profiles_seed

pytestmark = pytest.mark.django_db


@pytest.fixture
def site_video(site):
    demo_profiles_seed(site=site, count=5, seed=7)
    video = lander_video_make(site=site)
    yield video
    lander_video_delete(site=site)


def probe(data: bytes) -> tuple[str, int, float, int, int]:
    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _frame in container.decode(stream))
        return (
            stream.codec_context.name,
            frames,
            container.duration / 1_000_000,
            len(container.streams.audio),
            stream.width,
        )


def test_the_video_is_a_small_muted_loop_of_the_sites_photos(site, site_video):
    assert site_video.site_id == site.pk and site_video.slides == 4 and site_video.seconds == 8
    for field, codec in ((site_video.webm, "vp9"), (site_video.mp4, "h264")):
        assert field.name.startswith(f"{site.schema_name}/landers/video-")
        data = field.read()
        assert len(data) < 400 * 1024  # a few hundred KB at most
        name, frames, seconds, audio, width = probe(data)
        assert (name, audio, width) == (codec, 0, SIDE)
        assert frames == 8 * 24 and 7.5 <= seconds <= 8.5
    assert (site_video.width, site_video.height) == (SIDE, SIDE)


def test_making_it_again_replaces_the_files(site, site_video):
    storage = LanderVideo._meta.get_field("webm").storage
    old = site_video.webm.name
    again = lander_video_make(site=site)
    assert again.pk == site_video.pk and again.webm.name != old
    assert not storage.exists(old) and storage.exists(again.webm.name)


def test_a_site_without_photos_gets_no_video(gay_site):
    with pytest.raises(NoPhotos):
        lander_video_make(site=gay_site)


def test_the_admin_refuses_a_site_whose_only_photos_are_hidden(gay_site):
    from django.urls import reverse

    from apps.profiles.models import Profile, ProfileStatus
    from conftest import on_site
    from tests.staff import ADMIN_HOST, staff_client, staff_member

    [hidden] = lander_profiles(gay_site, 1, gender="male")
    with on_site(gay_site):
        Profile.objects.filter(pk=hidden.pk).update(status=ProfileStatus.DISABLED)
    client = staff_client(staff_member("operators"))
    url = reverse("admin:landers_landervideo_add", urlconf="config.urls_public")
    response = client.post(url, {"site": gay_site.pk}, HTTP_HOST=ADMIN_HOST)
    assert response.status_code == 200
    assert "This site has no approved photos to make a video from yet." in response.content.decode()
    assert not LanderVideo.objects.filter(site=gay_site).exists()


def test_the_video_landers_play_it_with_captions(site, site_video, client_for):
    client = client_for(site)
    for lander in ("video", "transitionsvideolanding"):
        html = client.get(f"/landers/{lander}/summer").content.decode()
        assert 'data-testid="lander-slideshow"' not in html
        tag = html[html.index("<video") : html.index("</video>")]
        assert "muted" in tag and "loop" in tag and "playsinline" in tag and "autoplay" not in tag
        assert f'poster="{site_video.poster.url}"' in tag
        assert f'<source src="{site_video.webm.url}" type="video/webm">' in tag
        assert f'<source src="{site_video.mp4.url}" type="video/mp4">' in tag
        default = " default" if lander == "video" else ""  # the cinema's is a background: captions on demand
        assert f'<track kind="captions" srclang="en" label="English" src="/landers/captions/en.vtt"{default}>' in tag
        assert 'srclang="fr" label="français" src="/landers/captions/fr.vtt">' in tag


def test_captions_in_each_language_of_the_site(site, site_video, client_for):
    client = client_for(site)
    english = client.get("/landers/captions/en.vtt")
    assert english.status_code == 200 and english["Content-Type"] == "text/vtt; charset=utf-8"
    text = english.content.decode()
    assert text.startswith("WEBVTT\n\n1\n00:00:00.000 --> 00:00:02.000\nSingles near you were active recently\n")
    assert "4\n00:00:06.000 --> 00:00:08.000\nSign up for free\n" in text
    french = client.get("/landers/captions/fr.vtt")
    assert french["Content-Language"] == "fr"
    assert "Inscrivez-vous gratuitement" in french.content.decode()
    assert client.get("/landers/captions/de.vtt").status_code == 404  # not a language of this site
    assert client.get("/landers/captions/e%00n.vtt").status_code == 400


def test_the_files_are_served_with_byte_ranges(site, site_video, client_for):
    client = client_for(site)
    path = site_video.webm.url
    whole = client.get(path)
    assert whole.status_code == 200 and whole["Content-Type"] == "video/webm"
    assert whole["Accept-Ranges"] == "bytes" and "immutable" in whole["Cache-Control"]
    size = len(whole.content)
    part = client.get(path, HTTP_RANGE="bytes=10-19")
    assert part.status_code == 206 and part.content == whole.content[10:20]
    assert part["Content-Range"] == f"bytes 10-19/{size}"
    tail = client.get(path, HTTP_RANGE="bytes=-5")
    assert tail.status_code == 206 and tail.content == whole.content[-5:]
    assert client.get(path, HTTP_RANGE=f"bytes={size}-").status_code == 416
    assert client.get(site_video.poster.url)["Content-Type"] == "image/jpeg"


def test_another_sites_host_and_other_paths_get_404(site, gay_site, site_video, client_for):
    assert client_for(gay_site).get(site_video.webm.url).status_code == 404
    client = client_for(site)
    assert client.get(f"/media/{site.schema_name}/landers/../photos/x.jpg").status_code == 404
    assert client.get(f"/media/{site.schema_name}/landers/other.webm").status_code == 404


def test_a_site_without_video_shows_a_slideshow_never_a_player(gay_site, client_for):
    lander_profiles(gay_site, 5, gender="male")
    client = client_for(gay_site)
    for lander in ("video", "transitionsvideolanding"):
        html = client.get(f"/landers/{lander}").content.decode()
        assert "<video" not in html and 'data-testid="lander-slideshow"' in html
        assert html.count('class="lander-slide lander-slide-') == 4
    assert client.get("/landers/captions/en.vtt").status_code == 404


def test_the_command_makes_the_demo_sites_video(site, capsys):
    demo_profiles_seed(site=site, count=4, seed=3)
    call_command("lander_video", "--site", "localhost")
    assert "localhost: 8 s video" in capsys.readouterr().out
    video = LanderVideo.objects.get(site=site)
    lander_video_delete(site=site)
    assert not LanderVideo.objects.filter(pk=video.pk).exists()


# How the captions used to claim presence, per language ("online" in most of them).
PRESENCE = {"es": "conectad", "fi": "paikalla", "fr": "en ligne", "nb": "pålogget"}


@pytest.mark.parametrize("language", ["da", "de", "en", "es", "fi", "fr", "it", "nb", "nl", "pl", "sv"])
def test_the_captions_claim_recent_activity_never_presence(language):
    """The site knows when members were last active, not who is online now: no caption of
    any niche says "online", in any language; each first caption is translated."""
    from django.utils import translation

    from apps.landers.copy import COPY

    with translation.override("en"):
        english = {niche: str(copy.captions[0]) for niche, copy in COPY.items()}
    with translation.override(language):
        for niche, copy in COPY.items():
            for caption in copy.captions:
                text = str(caption).lower()
                assert "online" not in text and PRESENCE.get(language, "online") not in text, (language, text)
            assert "recently" in english[niche]
            assert (str(copy.captions[0]) != english[niche]) == (language != "en"), (language, niche)
