"""Forms of the SMS direct debit pages (/directdebit). They parse what the member typed
and put a translated message under each field; the field rules (IBAN, mobile number,
postal code) are in apps.payments.directdebit. After cleaning, the IBAN and the mobile
number are shown formatted, so a re-shown form keeps what was typed, tidied."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from apps.payments import directdebit


class DirectDebitForm(forms.Form):
    package = forms.TypedChoiceField(
        label=_("Package"),
        coerce=int,
        error_messages={
            "required": _("Choose a package."),
            "invalid_choice": _("This package is not available. Please choose a package."),
        },
    )
    account_holder = forms.CharField(
        label=_("Account holder"),
        max_length=70,  # SEPA's limit for a name
        error_messages={
            "required": _("Enter the name of the account holder."),
            "max_length": _("Enter at most %(limit_value)d characters."),
        },
    )
    iban = forms.CharField(
        label=_("IBAN"), max_length=50, error_messages={"required": _("Enter your IBAN.")}, strip=True
    )
    street = forms.CharField(
        label=_("Street"),
        max_length=100,
        error_messages={
            "required": _("Enter your street."),
            "max_length": _("Enter at most %(limit_value)d characters."),
        },
    )
    house_number = forms.CharField(
        label=_("House number"),
        max_length=20,
        error_messages={
            "required": _("Enter your house number."),
            "max_length": _("Enter at most %(limit_value)d characters."),
        },
    )
    postal_code = forms.CharField(
        label=_("Postal code"),
        max_length=20,
        error_messages={"required": _("Enter your postal code."), "max_length": _("Enter a valid postal code.")},
    )
    city = forms.CharField(
        label=_("City"),
        max_length=100,
        error_messages={
            "required": _("Enter your city."),
            "max_length": _("Enter at most %(limit_value)d characters."),
        },
    )
    mobile = forms.CharField(
        label=_("Mobile number"),
        max_length=30,
        error_messages={"required": _("Enter your mobile number."), "max_length": _("Enter a valid mobile number.")},
    )
    authorization = forms.BooleanField(
        error_messages={"required": _("Please tick the box to authorise the direct debit.")},
    )

    def __init__(self, *args, country: str, package_ids: list[int], **kwargs):
        kwargs.setdefault("auto_id", "dd-%s")
        super().__init__(*args, **kwargs)
        self.country = country
        self.fields["package"].choices = [(package_id, str(package_id)) for package_id in package_ids]

    def clean_account_holder(self) -> str:
        name = " ".join(self.cleaned_data["account_holder"].split())
        if not any(char.isalpha() for char in name):
            raise ValidationError(_("Enter the name of the account holder."), code="invalid")
        return name

    def clean_iban(self) -> str:
        iban = directdebit.iban_clean(self.cleaned_data["iban"])
        self._show("iban", directdebit.iban_formatted(iban))
        return iban

    def clean_street(self) -> str:
        return " ".join(self.cleaned_data["street"].split())

    def clean_house_number(self) -> str:
        return directdebit.house_number_clean(self.cleaned_data["house_number"])

    def clean_postal_code(self) -> str:
        code = directdebit.postal_code_clean(self.cleaned_data["postal_code"], country=self.country)
        self._show("postal_code", code)
        return code

    def clean_city(self) -> str:
        return " ".join(self.cleaned_data["city"].split())

    def clean_mobile(self) -> str:
        mobile = directdebit.mobile_clean(self.cleaned_data["mobile"], country=self.country)
        self._show("mobile", directdebit.mobile_formatted(mobile))
        return mobile

    def _show(self, name: str, value: str) -> None:
        """Re-show a valid value in its tidy form."""
        if hasattr(self.data, "_mutable"):
            self.data = self.data.copy()
        else:
            self.data = dict(self.data)
        self.data[self.add_prefix(name)] = value


class CodeForm(forms.Form):
    code = forms.CharField(
        label=_("Code from the SMS"),
        max_length=20,
        error_messages={"required": _("Enter the 6-digit code from the SMS.")},
    )

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "dd-%s")
        super().__init__(*args, **kwargs)

    def clean_code(self) -> str:
        code = "".join(self.cleaned_data["code"].split())
        if not (code.isascii() and code.isdigit() and len(code) == directdebit.CODE_DIGITS):
            raise ValidationError(_("The code has 6 digits. Please check the SMS."), code="format")
        return code
