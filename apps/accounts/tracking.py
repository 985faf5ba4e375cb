"""Tracking parameters (spec §7): kept in the session on arrival, removed from the
address, stored with the account at signup."""

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponseRedirect

from apps.accounts.models import SignupTracking

SESSION_KEY = "tracking"
PARAMS = SignupTracking.TRACKING_FIELDS


def tracking_from_session(request: HttpRequest) -> dict[str, str]:
    return dict(request.session.get(SESSION_KEY) or {})


def has_tracking_network(request: HttpRequest) -> bool:
    return bool(tracking_from_session(request).get("network"))


class TrackingMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        site = getattr(request, "site", None)
        if request.method == "GET" and site is not None and any(key in request.GET for key in PARAMS):
            found = {key: request.GET[key][:100] for key in PARAMS if request.GET.get(key)}
            if found:
                request.session[SESSION_KEY] = {**tracking_from_session(request), **found}
            rest = [(key, value) for key, value in request.GET.items() if key not in PARAMS]
            return HttpResponseRedirect(request.path + (f"?{urlencode(rest)}" if rest else ""))
        return self.get_response(request)
