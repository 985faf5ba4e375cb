"""Django's messages with the storage made when used (apps.common.middleware.SiteMessageMiddleware):
a message added is kept for the next page as before; a request that never touches the
messages makes no storage and sets no cookie."""

from django.contrib import messages
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpResponse
from django.test import RequestFactory
from django.utils.functional import empty

from apps.common.middleware import SiteMessageMiddleware


def _request():
    request = RequestFactory().get("/")
    SessionMiddleware(lambda r: None).process_request(request)
    return request


def test_a_message_added_is_stored_for_the_next_page():
    def view(request):
        messages.success(request, "Saved")
        return HttpResponse("ok")

    response = SiteMessageMiddleware(view)(_request())
    shown = []

    def next_page(request):
        shown.extend(str(message) for message in messages.get_messages(request))
        return HttpResponse("ok")

    following = _request()
    following.COOKIES["messages"] = response.cookies["messages"].value
    SiteMessageMiddleware(next_page)(following)
    assert shown == ["Saved"]


def test_a_request_that_never_touches_the_messages_makes_no_storage():
    request = _request()
    response = SiteMessageMiddleware(lambda r: HttpResponse("ok"))(request)
    assert "messages" not in response.cookies
    assert request.__dict__["_messages"]._wrapped is empty
