"""Forms of the settings and delete pages. They only parse and re-render what the member
typed; the rules and their messages live in the services (apps.accounts.services), whose
ApplicationError fields are put next to the fields with `errors_to_form`."""

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import DeleteReason
from apps.common.exceptions import ApplicationError


def errors_to_form(form: forms.Form, error: ApplicationError) -> None:
    """Show a service's field messages next to the fields, anything else above the form."""
    fields = error.extra.get("fields") or {}
    for name, messages in fields.items():
        for message in messages:
            form.add_error(name if name in form.fields else None, message)
    if not fields:
        form.add_error(None, error.message)


class _Form(forms.Form):
    """Several forms share a page: ids carry the form's prefix."""

    id_prefix = "settings"

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", f"{self.id_prefix}-%s")
        super().__init__(*args, **kwargs)


class EmailChangeForm(_Form):
    id_prefix = "email"

    new_email = forms.CharField(label=_("New e-mail address"), max_length=320, required=False, strip=True)
    password = forms.CharField(
        label=_("Your password"), max_length=200, required=False, strip=False, widget=forms.PasswordInput
    )


class PasswordChangeForm(_Form):
    id_prefix = "password"
    old_password = forms.CharField(
        label=_("Old password"), max_length=200, required=False, strip=False, widget=forms.PasswordInput
    )
    new_password1 = forms.CharField(
        label=_("New password"), max_length=200, required=False, strip=False, widget=forms.PasswordInput
    )
    new_password2 = forms.CharField(
        label=_("Repeat the new password"), max_length=200, required=False, strip=False, widget=forms.PasswordInput
    )


class InvisibleForm(_Form):
    id_prefix = "invisible"
    invisible = forms.BooleanField(label=_("Invisible mode"), required=False)


class DeleteReasonForm(_Form):
    id_prefix = "delete"
    reason = forms.ChoiceField(
        label=_("Why do you want to delete your account?"),
        choices=DeleteReason.choices,
        required=False,
        widget=forms.RadioSelect,
    )
    remarks = forms.CharField(label=_("Remarks"), max_length=5000, required=False, widget=forms.Textarea)


class DeleteConfirmForm(_Form):
    id_prefix = "confirm"
    password = forms.CharField(
        label=_("Your password"), max_length=200, required=False, strip=False, widget=forms.PasswordInput
    )
