"""Members' profiles and photos (spec §3 "Profile", "Image"). Site schemas."""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django_countries.fields import CountryField


class Gender(models.TextChoices):
    MALE = "male", _("Man")
    FEMALE = "female", _("Woman")


class Sexuality(models.TextChoices):
    HETERO = "hetero", _("Heterosexual")
    GAY = "gay", _("Gay")
    LESBIAN = "lesbian", _("Lesbian")
    BI = "bi", _("Bisexual")


class RelationshipStatus(models.TextChoices):
    SINGLE = "single", _("Single")
    RELATIONSHIP = "relationship", _("In a relationship")
    MARRIED = "married", _("Married")
    DIVORCED = "divorced", _("Divorced")
    WIDOWED = "widowed", _("Widowed")
    COMPLICATED = "complicated", _("It's complicated")


class BodyType(models.TextChoices):
    SLIM = "slim", _("Slim")
    ATHLETIC = "athletic", _("Athletic")
    AVERAGE = "average", _("Average")
    CURVY = "curvy", _("Curvy")
    FULL = "full", _("Full-figured")


class HairColor(models.TextChoices):
    BLACK = "black", _("Black")
    BROWN = "brown", _("Brown")
    BLOND = "blond", _("Blond")
    RED = "red", _("Red")
    GREY = "grey", _("Grey")
    BALD = "bald", _("Bald")
    OTHER = "other", _("Other")


class EyeColor(models.TextChoices):
    BROWN = "brown", _("Brown")
    BLUE = "blue", _("Blue")
    GREEN = "green", _("Green")
    GREY = "grey", _("Grey")
    HAZEL = "hazel", _("Hazel")


class Tattoos(models.TextChoices):
    NONE = "none", _("None")
    SOME = "some", _("A few")
    MANY = "many", _("Many")


class ProfileStatus(models.TextChoices):
    ACTIVE = "active", _("Active")
    DISABLED = "disabled", _("Disabled")


class Profile(models.Model):
    """What other members see. Disabled until the member confirms the e-mail address."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="profile"
    )
    name = models.CharField(_("name"), max_length=150)
    country = CountryField(_("country"), blank=True)
    region = models.CharField(_("region"), max_length=10, blank=True, help_text=_("ISO 3166-2 code"))
    city = models.CharField(_("city"), max_length=120, blank=True)
    date_of_birth = models.DateField(_("date of birth"), null=True, blank=True)
    gender = models.CharField(_("gender"), max_length=10, choices=Gender.choices, blank=True)
    sexuality = models.CharField(_("sexuality"), max_length=10, choices=Sexuality.choices, blank=True)
    relationship_status = models.CharField(
        _("relationship status"), max_length=20, choices=RelationshipStatus.choices, blank=True
    )
    body_type = models.CharField(_("body type"), max_length=20, choices=BodyType.choices, blank=True)
    hair_color = models.CharField(_("hair colour"), max_length=20, choices=HairColor.choices, blank=True)
    eye_color = models.CharField(_("eye colour"), max_length=20, choices=EyeColor.choices, blank=True)
    tattoos = models.CharField(_("tattoos"), max_length=10, choices=Tattoos.choices, blank=True)
    interests = ArrayField(models.CharField(max_length=60), default=list, blank=True, verbose_name=_("interests"))
    about_me = models.TextField(_("about me"), max_length=2000, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=ProfileStatus.choices, default=ProfileStatus.DISABLED)
    is_fictional = models.BooleanField(_("fictional"), default=False)
    is_cam = models.BooleanField(_("cam entry"), default=False)
    is_resell = models.BooleanField(_("resell entry"), default=False)
    main_photo = models.ForeignKey("Photo", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # A waiting photo the member chose as main photo while an approved one is main: others
    # keep seeing the approved one until support approves this one, never "no photo".
    main_photo_waiting = models.ForeignKey("Photo", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")
        indexes = [
            # Search counts (apps.profiles.search, COUNT_LIMIT matches at most) read this
            # index alone: what the visibility, blocks and region conditions need is in it.
            models.Index(
                fields=["status", "gender", "country", "date_of_birth"],
                include=["user", "region", "id"],
                name="profile_search_count_idx",
            ),
            # Search pages newest first (apps.profiles.search): keyset pagination reads
            # these in order, with or without a gender filter.
            models.Index(
                "country",
                models.F("created").desc(),
                models.F("id").desc(),
                name="profile_search_new_idx",
                condition=models.Q(status="active"),
            ),
            models.Index(
                "country",
                "gender",
                models.F("created").desc(),
                models.F("id").desc(),
                name="profile_search_gender_new_idx",
                condition=models.Q(status="active"),
            ),
            # With a region, the count reads this one alone (the region narrows it first).
            models.Index(
                "country",
                "region",
                models.F("created").desc(),
                models.F("id").desc(),
                include=["gender", "date_of_birth", "user"],
                name="profile_search_region_idx",
                condition=models.Q(status="active"),
            ),
        ]

    def __str__(self) -> str:
        return self.name


class PhotoStatus(models.TextChoices):
    PENDING = "pending", _("Waiting for approval")
    ACTIVE = "active", _("Active")
    REJECTED = "rejected", _("Rejected")


class PhotoRejectionReason(models.TextChoices):
    """Why support rejected a photo. Stored as a code, shown in the member's language.
    The order is the moderation queue's (digit keys 1-9)."""

    NUDITY = "nudity", _("Nudity or sexual content")
    NO_FACE = "no_face", _("Your face cannot be seen")
    NOT_PERSON = "not_person", _("Does not show a person")
    QUALITY = "quality", _("Too blurry, dark or small")
    CONTACT = "contact", _("Contains contact details, text or a watermark")
    MINOR = "minor", _("Shows a child")
    NOT_YOURS = "not_yours", _("Appears to be someone else's photo")
    OFFENSIVE = "offensive", _("Violent or offensive")
    OTHER = "other", _("Does not meet our photo rules")


def photo_fix_hint(reason: str) -> str:
    """How to fix a photo rejected for `reason` (a PhotoRejectionReason code), in the
    active language: the notice (apps.notifications.content) and the in-site alert
    (templatetags.profile_alerts) say the same."""
    hints = {
        "nudity": gettext("Choose a photo in which you are dressed."),
        "no_face": gettext("Choose a photo in which your face is clearly visible."),
        "not_person": gettext("Choose a photo of yourself."),
        "quality": gettext("Choose a sharp, well-lit photo of at least 200 pixels on each side."),
        "contact": gettext("Choose a photo without text, contact details or a watermark."),
        "minor": gettext("Choose a photo that shows only you."),
        "not_yours": gettext("Choose a photo that shows you and that you took or own."),
        "offensive": gettext("Choose a friendly photo of yourself."),
    }
    return hints.get(reason, gettext("Choose a clear photo of yourself that follows our photo rules."))


class Photo(models.Model):
    """A re-encoded upload (apps.profiles.images) with its thumbnail. Support decides a
    pending photo in the moderation queue (apps.moderation): `decided_at` is set then,
    never for photos approved automatically."""

    profile = models.ForeignKey(Profile, on_delete=models.CASCADE, related_name="photos")
    image = models.ImageField(upload_to="photos/", width_field="width", height_field="height")
    thumb = models.ImageField(upload_to="photos/thumbs/")
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    status = models.CharField(_("status"), max_length=10, choices=PhotoStatus.choices, default=PhotoStatus.PENDING)
    rejection_reason = models.CharField(
        _("reason for the rejection"), max_length=20, choices=PhotoRejectionReason.choices, blank=True
    )
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    # Support compared it with the member's verification selfie and it is them: while it
    # is the main photo, the profile carries the "verified" badge (apps.profiles.cards).
    verified = models.BooleanField(_("verified"), default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("photo")
        verbose_name_plural = _("photos")
        ordering = ["created", "pk"]

    def __str__(self) -> str:
        return f"{self.profile_id}: {self.image.name}"

    @property
    def is_public(self) -> bool:
        """Anyone may see it (and fetch it from the site's CDN): an approved photo."""
        return self.status == PhotoStatus.ACTIVE


class Block(models.Model):
    """A member blocks another: neither sees nor contacts the other (spec §6)."""

    blocker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_made")
    blocked = models.ForeignKey(Profile, on_delete=models.CASCADE, related_name="blocks_received")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("block")
        verbose_name_plural = _("blocks")
        constraints = [models.UniqueConstraint(fields=["blocker", "blocked"], name="unique_block")]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"


class ComplaintReason(models.TextChoices):
    FAKE = "fake", _("Fake profile")
    INAPPROPRIATE = "inappropriate", _("Inappropriate photos or text")
    HARASSMENT = "harassment", _("Harassment or insults")
    SCAM = "scam", _("Asks for money or is a scam")
    MINOR = "minor", _("May be under age")
    OTHER = "other", _("Other")
    # Not a member's choice: the site holds a first message with scam signals for review
    # (apps.chat.safety) and files it as a complaint of this reason.
    HELD_MESSAGE = "held_message", _("Message held for review")
    # Not a member's choice either: several members complained about the same member.
    MANY_REPORTS = "many_reports", _("Reported by several members")


# The reasons members and visitors choose from (the complaint form, the chat's report).
MEMBER_COMPLAINT_REASONS = [
    choice
    for choice in ComplaintReason.choices
    if choice[0] not in (ComplaintReason.HELD_MESSAGE, ComplaintReason.MANY_REPORTS)
]


class ComplaintStatus(models.TextChoices):
    OPEN = "open", _("Open")
    IN_PROGRESS = "in_progress", _("In progress")
    RESOLVED = "resolved", _("Resolved")


class ComplaintAction(models.TextChoices):
    """What support did about a complaint."""

    NONE = "none", _("No action")
    WARNED = "warned", _("Member warned")
    PHOTO_HIDDEN = "photo_hidden", _("Photo hidden")
    PROFILE_DISABLED = "profile_disabled", _("Profile disabled")
    ACCOUNT_ERASED = "account_erased", _("Account erased")
    MESSAGE_RELEASED = "message_released", _("Held message delivered")
    MESSAGE_REJECTED = "message_rejected", _("Held message rejected, credits returned")
    OTHER = "other", _("Other")


class Complaint(models.Model):
    """A complaint about a profile (and optionally one of its photos or one message of a
    conversation the reporter takes part in), or a general one, kept for customer
    support. Support handles it in the complaints queue (apps.moderation): open, in
    progress, resolved, with the action taken. The staff member is named by id and name
    (staff live in the public schema)."""

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="complaints_made"
    )
    profile = models.ForeignKey(Profile, on_delete=models.SET_NULL, null=True, blank=True, related_name="complaints")
    photo = models.ForeignKey(Photo, on_delete=models.SET_NULL, null=True, blank=True, related_name="complaints")
    message = models.ForeignKey(
        "chat.Message", on_delete=models.SET_NULL, null=True, blank=True, related_name="complaints"
    )
    reason = models.CharField(_("reason"), max_length=20, choices=ComplaintReason.choices)
    text = models.TextField(_("complaint"), max_length=5000)
    email = models.EmailField(_("e-mail address for our answer"), blank=True)
    status = models.CharField(_("status"), max_length=12, choices=ComplaintStatus.choices, default=ComplaintStatus.OPEN)
    assignee_id = models.BigIntegerField(_("assigned to (staff id)"), null=True, blank=True)
    assignee_name = models.CharField(_("assigned to"), max_length=150, blank=True)
    action = models.CharField(_("action taken"), max_length=20, choices=ComplaintAction.choices, blank=True)
    action_note = models.TextField(_("note"), max_length=2000, blank=True)
    handled_at = models.DateTimeField(_("resolved"), null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("complaint")
        verbose_name_plural = _("complaints")
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.get_reason_display()} ({self.created:%Y-%m-%d})"


def private_storage():
    """Where verification selfies are kept: never under the public media URLs
    (settings STORAGES["private"], apps.common.storage.PrivateSiteStorage)."""
    from django.core.files.storage import storages

    return storages["private"]


class VerificationStatus(models.TextChoices):
    PENDING = "pending", _("Waiting for a decision")
    APPROVED = "approved", _("Verified")
    REJECTED = "rejected", _("Not verified")


class VerificationRejectionReason(models.TextChoices):
    """Why support did not verify a member. The order is the queue's."""

    POSE = "pose", _("The selfie does not show the pose asked for")
    FACE = "face", _("Your face cannot be seen clearly in the selfie")
    DIFFERENT = "different", _("The selfie does not match your photos")
    QUALITY = "quality", _("The selfie is too blurry or dark")
    OTHER = "other", _("The selfie does not meet our rules")


def verification_fix_hint(reason: str) -> str:
    """How to take the next selfie after support did not verify the member for `reason`
    (a VerificationRejectionReason), in the active language."""
    hints = {
        "pose": gettext("Take the selfie again in exactly the pose we show you."),
        "face": gettext("Take the selfie again facing the camera, with nothing covering your face."),
        "different": gettext("Take the selfie yourself, and check that your approved photos show you."),
        "quality": gettext("Take the selfie again in good light and hold the camera still."),
    }
    return hints.get(reason, gettext("Take a new selfie that follows our photo rules."))


class Verification(models.Model):
    """A member's request to have their photos verified: a selfie in a drawn pose
    (apps.profiles.poses) that support compares with the member's approved photos in the
    verification queue (apps.moderation). The selfie is private (private_storage, served
    only to staff) and deleted once decided; after a rejection it is kept until
    `delete_after` (30 days, for an appeal), then the beat task deletes it."""

    profile = models.ForeignKey(Profile, on_delete=models.CASCADE, related_name="verifications")
    pose = models.CharField(_("pose"), max_length=30)
    selfie = models.FileField(_("selfie"), upload_to="verification/", storage=private_storage, blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=VerificationStatus.choices, default=VerificationStatus.PENDING
    )
    rejection_reason = models.CharField(
        _("reason for the rejection"), max_length=20, choices=VerificationRejectionReason.choices, blank=True
    )
    created = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    delete_after = models.DateTimeField(_("selfie deleted after"), null=True, blank=True)

    class Meta:
        verbose_name = _("verification request")
        verbose_name_plural = _("verification requests")
        ordering = ["-created", "-pk"]
        constraints = [
            # One request waits at a time.
            models.UniqueConstraint(
                fields=["profile"], condition=models.Q(status="pending"), name="one_pending_verification"
            ),
        ]
        indexes = [
            models.Index(fields=["delete_after"], name="verification_purge_idx", condition=~models.Q(selfie="")),
        ]

    def __str__(self) -> str:
        return f"{self.profile_id}: {self.status}"
