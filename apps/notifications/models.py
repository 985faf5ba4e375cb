"""The notification outbox (site schemas).

Every notice a member gets, by e-mail or by push, is first a row here, written in the
transaction of the event that caused it (a message, a like, a reminder, a campaign, a
transactional mail). A Celery task sends it once it is due; a sweep from beat sends
what a lost task left behind. A pending notice of a mergeable kind collects what happens
before it is due ("3 new messages from Anna"): at most one pending row per member,
channel and `merge_key`."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Channel(models.TextChoices):
    EMAIL = "email", _("E-mail")
    PUSH = "push", _("Push")


class NoticeState(models.TextChoices):
    PENDING = "pending", _("Waiting")
    SENDING = "sending", _("Being sent")
    SENT = "sent", _("Sent")
    SKIPPED = "skipped", _("Not sent")
    FAILED = "failed", _("Failed")


# Kinds beyond spec §3's notification types: mails a member asked for (activation,
# password reset, address change, reactivation). They ignore the preferences.
ACCOUNT_MAIL = "account"


class Notice(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(_("kind"), max_length=40)
    channel = models.CharField(_("channel"), max_length=5, choices=Channel.choices)
    state = models.CharField(_("state"), max_length=10, choices=NoticeState.choices, default=NoticeState.PENDING)
    # Equal keys of one member and channel merge while pending; "" never merges.
    merge_key = models.CharField(max_length=60, blank=True)
    # What happened, newest last, at most NOTICE_ITEMS_KEPT of them; `count` counts all.
    items = models.JSONField(default=list, blank=True)
    count = models.PositiveIntegerField(default=1)
    # A rendered mail (account mails): subject, text, html, to, sender, headers. Emptied
    # once sent: it may hold a one-time link.
    mail = models.JSONField(null=True, blank=True)
    campaign_id = models.BigIntegerField(null=True, blank=True)
    due_at = models.DateTimeField(_("due"))
    claimed_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    # Push subscriptions still to reach after a 429 or 5xx (ids); empty: all of them.
    retry_subscriptions = models.JSONField(default=list, blank=True)
    result = models.CharField(_("result"), max_length=200, blank=True)
    # E-mail: the address used and what the mail provider reported later.
    email = models.CharField(_("e-mail address"), max_length=254, blank=True)
    delivery = models.CharField(_("delivery"), max_length=20, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)

    class Meta:
        verbose_name = _("notice")
        verbose_name_plural = _("notices")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "channel", "merge_key"],
                condition=models.Q(state="pending") & ~models.Q(merge_key=""),
                name="notice_pending_merge",
            ),
        ]
        indexes = [
            models.Index(fields=["due_at"], name="notice_due_idx", condition=models.Q(state="pending")),
            models.Index(fields=["claimed_at"], name="notice_sending_idx", condition=models.Q(state="sending")),
            models.Index(fields=["user", "kind", "-created"], name="notice_member_kind_idx"),
            models.Index(fields=["campaign_id", "state"], name="notice_campaign_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.kind}/{self.channel} to {self.user_id}: {self.state}"
