from django.urls import path

from apps.pages import pwa, views, views_profile

urlpatterns = [
    path("", views.index, name="index"),
    path("lang-config", views.lang_config, name="lang-config"),
    # The member's profile page, composed of the profile, the like and the gift button.
    path("members/<int:id>", views_profile.profile_view, name="members-id"),
    path("likes/m/<int:id>", views_profile.profile_view, name="likes-m-id"),
    # The installable app (apps.pages.pwa): the manifest and the icons it names.
    path("manifest.webmanifest", pwa.manifest, name="web-manifest"),
    path("icons/<slug:name>.png", pwa.icon, name="pwa-icon"),
    *[
        path(
            f"pages/{page}",
            views.cookies_page if page == "cookies" else views.content_page,
            {"page": page},
            name=f"pages-{page}",
        )
        for page in views.CONTENT_PAGES
    ],
]
