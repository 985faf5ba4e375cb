"""The drawn poses a member imitates in a verification selfie (simple line drawings in
static/profiles/poses/<pose>.svg), each with a translated description: the drawing's
text alternative and the instruction under it. One is picked at random per request, so
an old or borrowed photo cannot pass."""

from __future__ import annotations

import secrets

from django.templatetags.static import static
from django.utils.translation import gettext_lazy as _

POSES = {
    "peace": _("Make a peace sign with two fingers beside your face."),
    "thumbs_up": _("Hold a thumbs up just below your chin."),
    "hand_on_head": _("Put one hand flat on top of your head."),
    "touch_ear": _("Touch one ear with your hand."),
}


def pose_random() -> str:
    return secrets.choice(list(POSES))


def pose_info(pose: str) -> dict | None:
    """{"pose", "description", "image"} of a known pose, else None."""
    if pose not in POSES:
        return None
    return {"pose": pose, "description": str(POSES[pose]), "image": static(f"profiles/poses/{pose}.svg")}
