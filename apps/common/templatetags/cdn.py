"""`{{ url|cdn }}`: a file anyone may fetch from the site's CDN (apps.common.storage.cdn_url).
`{{ photo.thumb.url|cdn:photo.is_public }}`: only when the argument is true, so a member's
own photo waiting for approval stays on the site's host, where their session reaches it."""

from django import template

from apps.common.storage import cdn_url

register = template.Library()


@register.filter
def cdn(url, public=True):
    if not url or not public:
        return url
    return cdn_url(str(url))
