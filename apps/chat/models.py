"""Conversations between two profiles and their messages (spec §3 Conversation, Message,
Chat). Site schemas.

A conversation joins two profiles; each side has a Participant row with that member's
own state: whether the chat is in their list, unread count, what they have read, what
they deleted, when they last opened it. Demo and fictional profiles have no member (`Participant.user` is null);
messages to them are stored all the same. The participant row also carries the other
profile and the last message that member may see, so the chat list is one query."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

# Spec §9 "Older chat messages are hidden beyond a history limit".
CHAT_HISTORY_LIMIT = getattr(settings, "CHAT_HISTORY_LIMIT", 100)
# Spec §9 "Free members start up to 2 conversations".
FREE_CONVERSATION_LIMIT = 2


class Conversation(models.Model):
    """One conversation per pair of profiles: `profile_low` has the smaller id, so the
    pair is unique however it was started."""

    profile_low = models.ForeignKey("profiles.Profile", on_delete=models.CASCADE, related_name="+")
    profile_high = models.ForeignKey("profiles.Profile", on_delete=models.CASCADE, related_name="+")
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    last_message_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("conversation")
        verbose_name_plural = _("conversations")
        constraints = [
            models.UniqueConstraint(fields=["profile_low", "profile_high"], name="unique_conversation_pair"),
            models.CheckConstraint(
                condition=models.Q(profile_low__lt=models.F("profile_high")), name="conversation_pair_order"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.profile_low_id} <-> {self.profile_high_id}"


class Participant(models.Model):
    """One side of a conversation, as that member sees it."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="participants")
    profile = models.ForeignKey("profiles.Profile", on_delete=models.CASCADE, related_name="chat_participations")
    # The profile's member when the conversation was made (null for demo profiles).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="chat_participations"
    )
    other_profile = models.ForeignKey("profiles.Profile", on_delete=models.CASCADE, related_name="+")
    is_starter = models.BooleanField(_("started the conversation"), default=False)
    # In this member's chat list: after a message they sent or received, until they delete it.
    listed = models.BooleanField(_("in the chat list"), default=False)
    num_unread = models.PositiveIntegerField(_("unread messages"), default=0)
    last_read_message = models.ForeignKey("Message", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # The newest message this member may see (held messages are not theirs to see yet).
    last_message = models.ForeignKey("Message", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    last_message_at = models.DateTimeField(null=True, blank=True)
    # Deleting a chat hides the messages up to then for this member only.
    cleared_up_to = models.BigIntegerField(_("messages hidden up to id"), default=0)
    deleted_at = models.DateTimeField(_("deleted"), null=True, blank=True)
    # When this member last opened the conversation (its page, or GET /api/chat.php): the
    # member's last opened chat is their open, listed chat with the latest one (spec §3
    # "last opened chat profile and date"). Not indexed: a member has few rows, and the
    # chat list reads it with the rows it loads anyway.
    last_opened = models.DateTimeField(_("last opened"), null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("participant")
        verbose_name_plural = _("participants")
        constraints = [
            models.UniqueConstraint(fields=["conversation", "profile"], name="unique_participant"),
        ]
        indexes = [
            # The chat list, newest first.
            models.Index(
                "user",
                models.F("last_message_at").desc(nulls_last=True),
                models.F("id").desc(),
                name="participant_list_idx",
                condition=models.Q(listed=True),
            ),
            # Conversations a member started (the free members' limit).
            models.Index(fields=["user", "is_starter"], name="participant_starter_idx"),
            models.Index(fields=["user", "other_profile"], name="participant_other_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.conversation_id}: {self.profile_id}"


class MessageKind(models.TextChoices):
    TEXT = "text", _("Text")
    PHOTO = "photo", _("Photo")
    GIFT = "gift", _("Gift")


class MessageReview(models.TextChoices):
    HELD = "held", _("Held for review")
    APPROVED = "approved", _("Approved")
    REJECTED = "rejected", _("Rejected")
    NOTICE = "notice", _("Shown with a safety notice")


class Message(models.Model):
    """A message, stored if and only if its credits were spent (apps.chat.services).
    `text` is plain text: it is always shown as text, never as HTML."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    sender = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages")
    sender_profile = models.ForeignKey("profiles.Profile", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(_("kind"), max_length=10, choices=MessageKind.choices, default=MessageKind.TEXT)
    text = models.TextField(_("text"), blank=True)
    photo = models.ImageField(upload_to="chat/", blank=True, width_field="photo_width", height_field="photo_height")
    photo_thumb = models.ImageField(upload_to="chat/thumbs/", blank=True)
    photo_width = models.PositiveIntegerField(default=0)
    photo_height = models.PositiveIntegerField(default=0)
    # The gift as sent (a copy: the public-schema catalogue, tenants.Gift, changes later).
    gift_id = models.BigIntegerField(_("gift"), null=True, blank=True)
    gift_name = models.CharField(_("gift name"), max_length=100, blank=True)
    gift_emoji = models.CharField(_("gift emoji"), max_length=16, blank=True)
    gift_image = models.CharField(_("gift image"), max_length=300, blank=True)
    credits = models.PositiveIntegerField(_("credits spent"), default=0)
    # Chosen by the sender's device: a resent message is stored (and paid) once.
    client_id = models.CharField(_("client id"), max_length=64)
    # To a member whose e-mail is not confirmed: kept back until they confirm (spec §4).
    held = models.BooleanField(_("held until the recipient confirms"), default=False)
    # Scam and spam signals found as it was sent (apps.chat.safety), comma-separated.
    signals = models.CharField(_("signals"), max_length=60, blank=True)
    # A first message with signals from a new account, by the site's rule: held for
    # support's review (held is then true until approved) or shown with a safety notice.
    review = models.CharField(_("review"), max_length=10, choices=MessageReview.choices, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(_("delivered"), null=True, blank=True)
    read_at = models.DateTimeField(_("read"), null=True, blank=True)

    class Meta:
        verbose_name = _("message")
        verbose_name_plural = _("messages")
        constraints = [
            models.UniqueConstraint(fields=["sender", "client_id"], name="unique_message_client_id"),
        ]
        indexes = [
            # History: the newest N of a conversation.
            models.Index(fields=["conversation", "-id"], name="message_history_idx"),
            # Release on confirmation.
            models.Index(fields=["conversation"], name="message_held_idx", condition=models.Q(held=True)),
        ]

    def __str__(self) -> str:
        return f"{self.conversation_id}: {self.kind} from {self.sender_id}"
