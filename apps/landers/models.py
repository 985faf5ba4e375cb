"""Operator-made site pages (the {token} route of spec §2) and a site's lander video.
Both live in the public schema with a site foreign key: operators edit them in the
admin of the operators' host, next to the site itself."""

from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.common.i18n import INTERFACE_LANGUAGES
from apps.tenants.models import Site

TOKEN_MAX_LENGTH = 60
TOKEN_PATTERN = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
token_validator = RegexValidator(
    rf"^{TOKEN_PATTERN}\Z",
    _("Use lower-case letters, digits and hyphens only (not at the start or the end)."),
)


class SitePage(models.Model):
    """A page an operator writes for one site, served at /<token> in one language."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="site_pages", verbose_name=_("site"))
    token = models.CharField(
        _("address"),
        max_length=TOKEN_MAX_LENGTH,
        validators=[token_validator],
        help_text=_("The page's address on the site's domains, after the slash, e.g. “summer-event”."),
    )
    language = models.CharField(
        _("language"), max_length=5, choices=[(code, code) for code in INTERFACE_LANGUAGES], default="en"
    )
    title = models.CharField(_("title"), max_length=150)
    body = models.TextField(
        _("text"),
        max_length=20000,
        help_text=_(
            "Plain text. Blank lines separate paragraphs; “# ” and “## ” start headings, “- ” list items; "
            "**bold**, *italic* and [links](https://example.com) work. HTML is shown as text."
        ),
    )
    published = models.BooleanField(_("published"), default=False)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("site page")
        verbose_name_plural = _("site pages")
        ordering = ["site", "token", "language"]
        constraints = [
            models.UniqueConstraint(fields=["site", "token", "language"], name="landers_sitepage_unique_token"),
        ]

    def __str__(self) -> str:
        return f"/{self.token} ({self.language})"


class LanderVideo(models.Model):
    """The short muted loop the video landers play, with its poster (apps.landers.video
    makes it from the site's own approved photos). Its files are under the site's media
    prefix (<schema>/landers/)."""

    site = models.OneToOneField(Site, on_delete=models.CASCADE, related_name="lander_video", verbose_name=_("site"))
    webm = models.FileField(_("WebM (VP9)"), upload_to="landers/")
    mp4 = models.FileField(_("MP4 (H.264)"), upload_to="landers/")
    poster = models.ImageField(_("poster"), upload_to="landers/", width_field="width", height_field="height")
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    slides = models.PositiveSmallIntegerField(_("slides"), default=0)
    slide_seconds = models.FloatField(_("seconds per slide"), default=2.0)
    created = models.DateTimeField(_("made"), auto_now=True)

    class Meta:
        verbose_name = _("lander video")
        verbose_name_plural = _("lander videos")

    def __str__(self) -> str:
        return f"{self.site}: {self.slides} × {self.slide_seconds:g} s"

    @property
    def seconds(self) -> float:
        return self.slides * self.slide_seconds

    @property
    def files(self) -> tuple:
        """The video's stored files: both encodings and the poster."""
        return (self.webm, self.mp4, self.poster)
