"""Which gateway takes a site's payments: the one place a gateway is chosen.

The interface (apps.payments.gateways.base) knows no implementation. Each gateway is a
class named by its dotted path in settings.PAYMENT_GATEWAYS, under the name a site
chooses (Site.payment_gateway) and a payment keeps (Payment.gateway); it is loaded here
when first asked for (Saleor's plugins, loaded by path), so no module of the payments
app imports a concrete gateway to pick one."""

from django.conf import settings
from django.utils.module_loading import import_string

from apps.payments.gateways.base import Gateway, GatewayError
from apps.tenants.models import Site


def gateway_class(name: str) -> type[Gateway]:
    """The class of the gateway called `name` (settings.PAYMENT_GATEWAYS). A name no
    gateway has is a GatewayError, which the payments service handles like a refusal."""
    try:
        path = settings.PAYMENT_GATEWAYS[name]
    except KeyError:
        raise GatewayError(f"No payment gateway is called {name!r} (PAYMENT_GATEWAYS).") from None
    return import_string(path)


def gateway_for(site: Site, *, name: str | None = None) -> Gateway:
    """The site's gateway (Site.payment_gateway) with the site's own keys; with `name`, the
    gateway that took an earlier payment (a site that moved from the sandbox to Mollie
    still follows, and refunds, its sandbox payments)."""
    return gateway_class(name or site.payment_gateway).for_site(site)


def sandbox_allowed() -> bool:
    """Whether the sandbox gateway may take payments here (development, tests, a demo or
    staging deployment that sets ALLOW_TEST_PAYMENTS). Where it may not, a site left on
    it takes no payments: it would give credits for nothing."""
    return bool(getattr(settings, "ALLOW_TEST_PAYMENTS", False))
