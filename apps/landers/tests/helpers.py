"""Profiles for the landers' tests: rows in a site's schema with an approved (or
pending) main photo. The pages only need the photos' addresses, so no files."""

from __future__ import annotations

import json
import re
import uuid
from datetime import date

from apps.profiles.models import Photo, PhotoStatus, Profile, ProfileStatus
from conftest import on_site


def lander_profiles(site, count: int, *, gender: str = "female", prefix: str = "Lander", **fields) -> list[Profile]:
    """`count` active profiles without a member (like demo profiles), each with an
    approved main photo, in `site`'s schema; newest last."""
    made = []
    with on_site(site):
        for number in range(count):
            tag = uuid.uuid4().hex[:6]
            values = {
                "name": f"{prefix}{number}",
                "gender": gender,
                "status": ProfileStatus.ACTIVE,
                "date_of_birth": date(1992, 3, 4),
                "country": "GB",
                "region": "GB-SCT" if number % 2 else "GB-ENG",
                "city": "Glasgow" if number % 2 else "Leeds",
                "about_me": "Coffee, walks and <b>bold</b> ideas.",
                **fields,
            }
            profile = Profile.objects.create(**values)
            photo = Photo.objects.create(
                profile=profile,
                image=f"{site.schema_name}/photos/l{profile.pk}-{tag}.jpg",
                thumb=f"{site.schema_name}/photos/thumbs/l{profile.pk}-{tag}.jpg",
                width=600,
                height=600,
                status=PhotoStatus.ACTIVE,
            )
            profile.main_photo = photo
            profile.save(update_fields=["main_photo"])
            made.append(profile)
    return made


def thumb_of(site, profile: Profile) -> str:
    with on_site(site):
        return Photo.objects.get(pk=Profile.objects.get(pk=profile.pk).main_photo_id).thumb.url


def island_props(html: str, name: str = "Signup") -> list[dict]:
    ids = re.findall(rf'<div data-island="{name}" id="([^"]+)"></div>', html)
    props = []
    for element_id in ids:
        match = re.search(rf'<script id="{element_id}-props" type="application/json">(.*?)</script>', html, re.S)
        props.append(json.loads(match.group(1)))
    return props
