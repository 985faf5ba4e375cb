from django.urls import path

from apps.pages import views

urlpatterns = [
    path("", views.index, name="index"),
    path("lang-config", views.lang_config, name="lang-config"),
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
