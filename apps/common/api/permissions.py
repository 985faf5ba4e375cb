"""Who may call an API view. DRF checks a view's permissions before its handler runs (and
after the CSRF check of apps.common.api.base), so a visitor's call to a member-only view
never reaches the view's code."""

from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import BasePermission


class MemberRequired(BasePermission):
    """Only a logged-in member. A visitor gets the API's 403 "authentication_required",
    written once by apps.common.exceptions.api_exception_handler; a view that asks the
    visitor something more particular ("Log in or sign up to chat.") names it in its
    `login_message`."""

    def has_permission(self, request, view) -> bool:
        if request.user and request.user.is_authenticated:
            return True
        # Raised rather than returned: DRF would answer a view without authenticators
        # with a PermissionDenied, which is not the visitor's answer.
        raise NotAuthenticated()
