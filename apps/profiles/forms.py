"""Forms of the profile pages. They only parse; the rules are in the services."""

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.profiles.models import MEMBER_COMPLAINT_REASONS


class ComplaintForm(forms.Form):
    reason = forms.ChoiceField(
        label=_("Reason"), choices=[("", "---------"), *MEMBER_COMPLAINT_REASONS], required=False
    )
    text = forms.CharField(label=_("Your complaint"), required=False, strip=False)
    email = forms.CharField(label=_("E-mail address for our answer"), max_length=254, required=False)
    profile = forms.IntegerField(required=False, widget=forms.HiddenInput)
    # The photo or the chat message complained about (checked by the service).
    photo = forms.IntegerField(required=False, widget=forms.HiddenInput)
    message = forms.IntegerField(required=False, widget=forms.HiddenInput)
