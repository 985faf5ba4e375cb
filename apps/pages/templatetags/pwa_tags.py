"""The installable app's links in the base layout's <head> (apps.pages.pwa):
`{% load pwa_tags %}{% pwa_head %}`."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from apps.pages.pwa import icon_url, short_name

register = template.Library()


@register.simple_tag(takes_context=True)
def pwa_head(context) -> SafeString | str:
    """The manifest (sent with the cookies, so its language is the visitor's), the
    browser's toolbar colour, the favicon and the home-screen icon of iOS. Nothing on the
    operators' host, which has no site."""
    site = context.get("site")
    if site is None:
        return ""
    return format_html(
        '<link rel="manifest" href="/manifest.webmanifest" crossorigin="use-credentials">'
        '<meta name="theme-color" content="{}">'
        '<meta name="apple-mobile-web-app-title" content="{}">'
        '<link rel="icon" href="{}" sizes="32x32" type="image/png">'
        '<link rel="apple-touch-icon" href="{}" sizes="180x180">',
        site.theme_primary,
        short_name(site.name),
        icon_url(site, "favicon-32"),
        icon_url(site, "apple-touch-icon-180"),
    )
