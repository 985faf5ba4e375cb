"""Signals of the accounts app for the apps built on it."""

from django.dispatch import Signal

# Every session of a member on the current site was ended (deletion, "log out on all
# devices"); sent with user_id inside the transaction that ended them.
sessions_ended = Signal()

# The second step of a staff member of the operators' admin changed hands: a set-up link
# was made (`event` "link_made", by `by`: a staff user, or None for a command run on the
# server, with `cause`), or a device was set up with one ("enrolled"). Sent with `user`,
# `by`, `event`, `cause` and `expires` inside the transaction that made the change; the
# audit trail records it (apps.support), so that a failed record undoes the change.
staff_second_step = Signal()

# A visitor arrived with tracking parameters (or a lander's `lb`) on a site's page; sent
# with `request` and `data` (what the tracking cookie keeps from now on: the parameters
# and the lander) by the tracking middleware, before its redirect. The conversion
# reports count it as a visit (apps.conversions). Not sent for an arrival whose redirect
# the page cache answers (apps.common.page_cache, on the ASGI side).
tracking_arrived = Signal()


def language_at_login(sender, request, user, **kwargs) -> None:
    """A member logging in on a browser that has no language chosen gets the pages in
    their own language from then on (the language cookie, apps.common.i18n), whichever
    device they chose it on. A language chosen on this browser stays."""
    from django.conf import settings

    from apps.common.i18n import language_remember

    if request is None or not getattr(user, "language", ""):
        return
    if settings.LANGUAGE_COOKIE_NAME not in request.COOKIES:
        language_remember(request, user.language)
