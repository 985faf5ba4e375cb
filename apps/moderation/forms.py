"""The queues' forms. They only parse; the rules are in apps.moderation.services."""

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.moderation.models import PhotoDecision
from apps.moderation.services import NOTE_MAX_LENGTH
from apps.profiles.models import ComplaintAction, ComplaintStatus, PhotoRejectionReason, VerificationRejectionReason


class PhotoDecisionForm(forms.Form):
    decision = forms.ChoiceField(
        label=_("Decision"), choices=[(PhotoDecision.APPROVED, _("Approve")), (PhotoDecision.REJECTED, _("Reject"))]
    )
    reason = forms.ChoiceField(
        label=_("Reason for the rejection"), choices=PhotoRejectionReason.choices, required=False
    )
    note = forms.CharField(
        label=_("Note for support (optional, not shown to the member)"),
        required=False,
        max_length=NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 40}),
    )
    # Where the queue goes on: the item after this one, within the same site filter.
    next = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    site = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)


class VerificationDecisionForm(forms.Form):
    decision = forms.ChoiceField(
        label=_("Decision"),
        choices=[(PhotoDecision.APPROVED, _("Verify")), (PhotoDecision.REJECTED, _("Do not verify"))],
    )
    reason = forms.ChoiceField(
        label=_("Reason for the rejection"), choices=VerificationRejectionReason.choices, required=False
    )
    note = forms.CharField(
        label=_("Note for support (optional, not shown to the member)"),
        required=False,
        max_length=NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 40}),
    )


class ComplaintMoveForm(forms.Form):
    to = forms.ChoiceField(label=_("New status"), choices=ComplaintStatus.choices)
    action = forms.ChoiceField(
        label=_("Action taken"), choices=[("", "---------"), *ComplaintAction.choices], required=False
    )
    note = forms.CharField(
        label=_("Note"),
        required=False,
        max_length=NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
    )


class ComplaintActForm(forms.Form):
    """The support console's action on the complaint's member; its rules (and the reason's
    length) are apps.support.services'."""

    reason = forms.CharField(
        label=_("Reason (for the audit trail)"),
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 50}),
    )
