"""How django-allauth sends mail, builds links and decides on signups, per site."""

from allauth.account.adapter import DefaultAccountAdapter
from django.http import HttpRequest
from django.urls import reverse


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest) -> bool:
        from apps.accounts.selectors import signup_allowed

        return signup_allowed(request=request)

    def get_email_confirmation_url(self, request: HttpRequest, emailconfirmation) -> str:
        # allauth's own key signs only the address id, which another site's schema
        # may also have: our key names the site, the member and the address.
        from apps.accounts.services.tokens import member_token_make

        address = emailconfirmation.email_address
        key = member_token_make(purpose="activate", member_id=address.user_id, a=address.pk, e=address.email.lower())
        return request.build_absolute_uri(reverse("activate") + f"?key={key}")

    def send_mail(self, template_prefix: str, email: str, context: dict) -> None:
        from apps.accounts.mail import mail_send_later

        mail_send_later(template_prefix=template_prefix, email=email, context=context)
