"""The queue sizes on the admin index (templates/admin/index.html)."""

from django import template
from django.urls import reverse

from apps.moderation.selectors import queue_sizes

register = template.Library()


@register.simple_tag(takes_context=True)
def moderation_queues(context) -> dict | None:
    """Waiting photos and unresolved complaints with the queues' addresses, for staff who
    may see the queues; None for others (no query then)."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None:
        return None
    photos = user.has_perm("moderation.view_photoreview") or user.has_perm("moderation.change_photoreview")
    complaints = user.has_perm("moderation.view_complaintcase") or user.has_perm("moderation.change_complaintcase")
    verifications = user.has_perm("moderation.view_verificationreview") or user.has_perm(
        "moderation.change_verificationreview"
    )
    if not (photos or complaints or verifications):
        return None
    sizes = queue_sizes()
    return {
        "photos": sizes["photos"] if photos else None,
        "verifications": sizes["verifications"] if verifications else None,
        "verifications_url": reverse("admin:moderation_verificationreview_queue"),
        "complaints": sizes["complaints"] if complaints else None,
        "photos_url": reverse("admin:moderation_photoreview_queue"),
        "complaints_url": reverse("admin:moderation_complaintcase_changelist"),
    }
