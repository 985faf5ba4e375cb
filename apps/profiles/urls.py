from django.urls import path

from apps.profiles import views as profile_views

urlpatterns: list = []

# The profile page's block/unblock forms, complaints (the page itself: apps.pages.urls).
urlpatterns += [
    path("members/<int:id>/block", profile_views.block_view, name="members-id-block"),
    path("members/<int:id>/unblock", profile_views.unblock_view, name="members-id-unblock"),
    path("complaints", profile_views.complaints_view, name="complaints"),
]

# Member search and the match finder (issue 4 items 4 and 5).
from apps.profiles import views_search  # noqa: E402

urlpatterns += [
    path("members", views_search.members_page, name="members"),
    path("match-finder", views_search.match_finder_page, name="match-finder"),
]

# My profile and the photo files for the development and test servers (issue 4 item 2).
from django.urls import re_path  # noqa: E402

from apps.profiles import views_profile  # noqa: E402

urlpatterns += [
    path("profile", views_profile.my_profile, name="profile"),
    path("profile/verify", views_profile.verify_page, name="profile-verify"),
    re_path(r"^media/(?P<path>[a-z_][a-z0-9_]*/photos/.+)$", views_profile.media_photo, name="media-photo"),
]
