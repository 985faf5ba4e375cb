"""`{% test_payments_badge %}`: the notice on a site's money pages (credits, checkout,
pricing, repeat order, direct debit) while the site is on the sandbox gateway, so
nobody takes a test site for a live one or a live one left on the sandbox for working."""

from django import template

from apps.payments.gateways.registry import sandbox_allowed

register = template.Library()


@register.inclusion_tag("partials/test_payments_badge.html", takes_context=True)
def test_payments_badge(context) -> dict:
    site = context.get("site")
    on_sandbox = getattr(site, "payment_gateway", "") == "sandbox"
    return {"on_sandbox": on_sandbox, "allowed": on_sandbox and sandbox_allowed()}
