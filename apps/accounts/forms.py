"""Forms of the login and password-reset pages: they only parse the input; the rules
and their messages live in the services (apps.accounts.services)."""

from django import forms


class LoginForm(forms.Form):
    email = forms.CharField(max_length=254)
    password = forms.CharField(max_length=200, strip=False)


class PasswordResetRequestForm(forms.Form):
    email = forms.CharField(max_length=254)


class PasswordResetForm(forms.Form):
    key = forms.CharField(max_length=200)
    password1 = forms.CharField(max_length=200, required=False, strip=False)
    password2 = forms.CharField(max_length=200, required=False, strip=False)
