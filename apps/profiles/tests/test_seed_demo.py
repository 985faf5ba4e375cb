from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from PIL import Image

from apps.profiles.models import Gender, Photo, PhotoStatus, Profile, ProfileStatus, Sexuality
from apps.profiles.services.demo import demo_profiles_delete, demo_profiles_seed
from apps.tenants.regions import regions_for_country
from conftest import on_site

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


def snapshot(site) -> list[tuple]:
    with on_site(site):
        return list(
            Profile.objects.order_by("pk").values_list(
                "name", "gender", "sexuality", "date_of_birth", "country", "region", "city", "interests",
                "is_fictional", "is_cam", "is_resell",
            )
        )  # fmt: skip


class TestSeedDemo:
    def test_same_site_same_profiles(self, site):
        assert demo_profiles_seed(site=site, count=12) == 12
        first = snapshot(site)
        assert demo_profiles_seed(site=site, count=12, reset=True) == 12
        assert snapshot(site) == first
        assert len({row[0] for row in first}) > 3  # not all the same name

    def test_another_seed_gives_other_profiles(self, site):
        demo_profiles_seed(site=site, count=12)
        first = snapshot(site)
        demo_profiles_seed(site=site, count=12, reset=True, seed=12345)
        assert snapshot(site) != first

    def test_profiles_fit_the_site(self, site):
        demo_profiles_seed(site=site, count=40)
        with on_site(site):
            profiles = list(Profile.objects.all())
        assert len(profiles) == 40
        assert {profile.gender for profile in profiles} == {Gender.MALE, Gender.FEMALE}
        for profile in profiles:
            assert profile.user_id is None and profile.status == ProfileStatus.ACTIVE
            assert profile.country.code in site.country_codes
            assert profile.region in {region["code"] for region in regions_for_country(profile.country.code)}
            assert profile.city
            assert set(profile.interests) <= set(site.interests) and profile.interests
            assert profile.date_of_birth is not None
        assert any(profile.is_fictional for profile in profiles)

    def test_the_gay_site_has_men_interested_in_men(self, gay_site):
        demo_profiles_seed(site=gay_site, count=30)
        with on_site(gay_site):
            rows = set(Profile.objects.values_list("gender", "sexuality"))
        assert {gender for gender, _sexuality in rows} == {Gender.MALE}
        assert {sexuality for _gender, sexuality in rows} <= {Sexuality.GAY, Sexuality.BI}

    def test_every_profile_has_an_active_main_photo_stored_under_the_site(self, site, settings):
        demo_profiles_seed(site=site, count=5)
        with on_site(site):
            profiles = list(Profile.objects.select_related("main_photo"))
            assert Photo.objects.count() == 5
        for profile in profiles:
            photo = profile.main_photo
            assert photo is not None and photo.status == PhotoStatus.ACTIVE and photo.profile_id == profile.pk
            assert photo.image.name.startswith(f"{site.schema_name}/photos/")
            assert photo.thumb.name.startswith(f"{site.schema_name}/photos/thumbs/")
            with Image.open(Path(settings.MEDIA_ROOT) / photo.image.name) as image:
                assert image.format == "JPEG" and image.size == (600, 600) == (photo.width, photo.height)
                assert not image.getexif()
            with Image.open(Path(settings.MEDIA_ROOT) / photo.thumb.name) as thumb:
                assert thumb.size == (400, 400)

    def test_running_twice_does_not_duplicate(self, site):
        assert demo_profiles_seed(site=site, count=5) == 5
        assert demo_profiles_seed(site=site, count=5) == 0
        with on_site(site):
            assert Profile.objects.count() == 5

    def test_reset_removes_the_old_photo_files(self, site, settings):
        demo_profiles_seed(site=site, count=3)
        with on_site(site):
            old = [Path(settings.MEDIA_ROOT) / name for name in Photo.objects.values_list("image", flat=True)]
        assert all(path.exists() for path in old)
        demo_profiles_seed(site=site, count=3, reset=True)
        assert not any(path.exists() for path in old)
        assert demo_profiles_delete(site=site) > 0
        with on_site(site):
            assert not Profile.objects.exists() and not Photo.objects.exists()


class TestCommand:
    def test_fills_both_demo_sites_once(self, site, gay_site):
        out = StringIO()
        call_command("seed_demo", "--count", "4", stdout=out)
        call_command("seed_demo", "--count", "4", stdout=out)
        for each in (site, gay_site):
            with on_site(each):
                assert Profile.objects.count() == 4
        assert "has demo profiles already" in out.getvalue()

    def test_one_site_with_reset(self, site, gay_site):
        call_command("seed_demo", "--site", "gay.localhost", "--count", "3", stdout=StringIO())
        call_command("seed_demo", "--site", "gay.localhost", "--count", "2", "--reset", stdout=StringIO())
        with on_site(gay_site):
            assert Profile.objects.count() == 2
        with on_site(site):
            assert not Profile.objects.exists()

    def test_setup_demo_seeds_empty_sites_only(self, site, gay_site, settings, tmp_path):
        settings.BASE_DIR = tmp_path  # it writes the operators' credentials under BASE_DIR/.data
        demo_profiles_seed(site=gay_site, count=2)
        call_command("setup_demo", stdout=StringIO())
        with on_site(site):
            assert Profile.objects.count() == 60
        with on_site(gay_site):
            assert Profile.objects.count() == 2
