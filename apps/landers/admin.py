"""Operators' admin for the site pages (/<token>) and the landers' videos."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.urls import Resolver404, resolve
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from apps.landers.models import LanderVideo, SitePage
from apps.landers.video import NoPhotos, lander_video_delete, lander_video_make, site_has_photos


def token_taken_by_route(token: str) -> bool:
    """Whether /<token> is an address of the sites already (it would never show)."""
    try:
        match = resolve(f"/{token}", urlconf="config.urls")
    except Resolver404:
        return False
    return match.url_name != "site-page"


class SitePageForm(forms.ModelForm):
    class Meta:
        model = SitePage
        fields = ("site", "token", "language", "title", "body", "published")
        widgets = {"body": forms.Textarea(attrs={"rows": 18})}

    def clean(self):
        cleaned = super().clean()
        token, site, language = cleaned.get("token"), cleaned.get("site"), cleaned.get("language")
        if token and token_taken_by_route(token):
            self.add_error("token", _("This address is already a page of the sites. Choose another one."))
        if site is not None and language and language not in site.languages:
            self.add_error("language", _("Choose one of the site's languages: %(languages)s.") % {
                "languages": ", ".join(site.languages)
            })  # fmt: skip
        return cleaned


@admin.register(SitePage)
class SitePageAdmin(admin.ModelAdmin):
    form = SitePageForm
    list_display = ("token", "language", "title", "site", "published", "updated")
    list_filter = ("published", "language", "site")
    search_fields = ("token", "title", "site__name")
    list_select_related = ("site",)
    actions = ("publish", "unpublish")

    @admin.action(description=_("Publish the selected pages"))
    def publish(self, request, queryset) -> None:
        count = queryset.update(published=True)
        self.message_user(request, ngettext("%(count)d page published.", "%(count)d pages published.", count) % {
            "count": count
        })  # fmt: skip

    @admin.action(description=_("Take the selected pages offline"))
    def unpublish(self, request, queryset) -> None:
        count = queryset.update(published=False)
        text = ngettext("%(count)d page taken offline.", "%(count)d pages taken offline.", count)
        self.message_user(request, text % {"count": count})


class LanderVideoForm(forms.ModelForm):
    class Meta:
        model = LanderVideo
        fields = ("site",)

    def clean_site(self):
        site = self.cleaned_data["site"]
        if not site_has_photos(site):  # the same photos lander_video_make takes
            raise forms.ValidationError(_("This site has no approved photos to make a video from yet."))
        return site


@admin.register(LanderVideo)
class LanderVideoAdmin(admin.ModelAdmin):
    """A site's video is made from its approved photos, never uploaded: choose the site,
    save, and the video is made (a few seconds)."""

    form = LanderVideoForm
    list_display = ("site", "slides", "slide_seconds", "width", "height", "created")
    list_select_related = ("site",)
    readonly_fields = ("webm", "mp4", "poster", "width", "height", "slides", "slide_seconds", "created")
    actions = ("make_again",)

    def get_readonly_fields(self, request, obj=None):
        return ("site", *self.readonly_fields) if obj else ()

    def save_model(self, request, obj, form, change) -> None:
        if change:
            return
        video = lander_video_make(site=obj.site)
        obj.pk = video.pk
        obj.refresh_from_db()

    def delete_model(self, request, obj) -> None:
        lander_video_delete(site=obj.site)  # the files too

    def delete_queryset(self, request, queryset) -> None:
        for video in queryset.select_related("site"):
            lander_video_delete(site=video.site)

    @admin.action(description=_("Make the videos again from the sites' current photos"))
    def make_again(self, request, queryset) -> None:
        made = 0
        for video in queryset.select_related("site"):
            try:
                lander_video_make(site=video.site)
                made += 1
            except NoPhotos:
                self.message_user(
                    request, _("%(site)s has no approved photos.") % {"site": video.site}, level=messages.WARNING
                )
        self.message_user(request, ngettext("%(count)d video made.", "%(count)d videos made.", made) % {
            "count": made
        })  # fmt: skip
