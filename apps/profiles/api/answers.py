"""The documented shapes of the answers that carry a profile (search, the swipe deck,
likes): each names the id a client uses in its next call, so that the schema's links
(apps.common.api.schema.answer_links) can say which answer feeds which call."""

from rest_framework import serializers


class MainImageOutput(serializers.Serializer):
    """A profile's main photo (spec §3 "main_image (may be null; has a match path)"):
    the lists' square thumbnail and the match modal's picture (docs/decisions.md, "The
    match modal's photo")."""

    thumb_filename = serializers.CharField()
    match_filename = serializers.CharField()


class OwnMainImageOutput(MainImageOutput):
    """The member's own main photo (GET /api/user.php), with the photo itself."""

    filename = serializers.CharField()


class ProfileCardOutput(serializers.Serializer):
    """apps.profiles.cards.profile_card: a profile as the lists show it."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    age = serializers.IntegerField(allow_null=True)
    city = serializers.CharField()
    region = serializers.CharField()
    country = serializers.CharField()
    facts = serializers.ListField(child=serializers.DictField())
    notes = serializers.ListField()
    fictional = serializers.JSONField(allow_null=True)
    main_image = MainImageOutput(allow_null=True)
    is_fictional = serializers.BooleanField()
    is_cam = serializers.BooleanField()
