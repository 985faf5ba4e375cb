"""The landers' routes (spec §2). The {token} route of site pages is in `token_urlpatterns`,
which config.urls puts last, so it never shadows another route."""

from django.urls import path, re_path, register_converter
from django.urls.converters import StringConverter

from apps.landers import views
from apps.landers.keys import GENERIC_LANDERS
from apps.landers.models import TOKEN_MAX_LENGTH, TOKEN_PATTERN

CAMPAIGN_MAX_LENGTH = 40


class CampaignConverter(StringConverter):
    """A lander's {slug}: a free campaign label, short, of [a-z0-9-] only. Anything
    else does not match, so the address is the normal 404 page (never a 5xx)."""

    regex = f"[a-z0-9-]{{1,{CAMPAIGN_MAX_LENGTH}}}"


register_converter(CampaignConverter, "campaign")

urlpatterns = []
for _lander in GENERIC_LANDERS:
    urlpatterns += [
        path(f"landers/{_lander}", views.generic_lander, {"lander": _lander}, name=f"landers-{_lander}"),
        path(
            f"landers/{_lander}/<campaign:slug>", views.generic_lander, {"lander": _lander}, name=f"landers-{_lander}"
        ),
    ]

urlpatterns += [
    path("members/<int:id>/landing", views.member_lander, {"variant": "landing"}, name="members-id-landing"),
    path("members/<int:id>/landing2", views.member_lander, {"variant": "landing2"}, name="members-id-landing2-slug"),
    path(
        "members/<int:id>/landing2/<campaign:slug>",
        views.member_lander,
        {"variant": "landing2"},
        name="members-id-landing2-slug",
    ),
    path("members/<int:id>/landing3", views.member_lander, {"variant": "landing3"}, name="members-id-landing3-slug"),
    path(
        "members/<int:id>/landing3/<campaign:slug>",
        views.member_lander,
        {"variant": "landing3"},
        name="members-id-landing3-slug",
    ),
    # The video's captions (WebVTT) in one of the site's languages, and its files.
    path("landers/captions/<slug:language>.vtt", views.captions, name="landers-captions"),
    re_path(r"^media/(?P<path>[a-z_][a-z0-9_]*/landers/.+)$", views.lander_media, name="landers-media"),
]

token_urlpatterns = [
    re_path(rf"^(?P<token>(?={TOKEN_PATTERN}$).{{1,{TOKEN_MAX_LENGTH}}})$", views.site_page_view, name="site-page"),
]
