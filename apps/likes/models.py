"""Likes between members (spec §3 likes / liked_by, §4). Site schemas."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class LikeSource(models.TextChoices):
    PROFILE = "profile", _("Profile")
    SEARCH = "search", _("Search")
    SWIPE = "swipe", _("Swipe game")


class Like(models.Model):
    """`liker` likes `profile`. A match is a like both ways. `is_new` stays true until
    the liked member opens the liker's profile (spec §4); `seen_at` records when the
    member was shown it in the match modal, so auto-like never shows it twice."""

    liker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="likes_given")
    profile = models.ForeignKey("profiles.Profile", on_delete=models.CASCADE, related_name="likes_received")
    source = models.CharField(_("source"), max_length=10, choices=LikeSource.choices, default=LikeSource.PROFILE)
    is_new = models.BooleanField(_("new"), default=True)
    seen_at = models.DateTimeField(_("shown in the match modal"), null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("like")
        verbose_name_plural = _("likes")
        constraints = [models.UniqueConstraint(fields=["liker", "profile"], name="unique_like")]
        indexes = [
            models.Index(fields=["profile", "-is_new", "-created"], name="like_received_idx"),
            models.Index(fields=["liker", "-created"], name="like_sent_idx"),
            models.Index(fields=["liker", "source", "created"], name="like_swipe_day_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.liker_id} likes {self.profile_id}"


class SwipePass(models.Model):
    """A profile the member swiped away in the swipe game: it is not offered again."""

    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="swipe_passes")
    profile = models.ForeignKey("profiles.Profile", on_delete=models.CASCADE, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("swiped-away profile")
        verbose_name_plural = _("swiped-away profiles")
        constraints = [models.UniqueConstraint(fields=["member", "profile"], name="unique_swipe_pass")]

    def __str__(self) -> str:
        return f"{self.member_id} passed {self.profile_id}"
