"""Payment gateways: one interface (base.Gateway), two implementations (sandbox, mollie).
`gateway_for(site)` gives the site's gateway."""

from apps.payments.gateways.base import (
    Gateway,
    GatewayError,
    GatewayTimeout,
    ProviderPayment,
    ProviderRefund,
    gateway_for,
)

__all__ = ["Gateway", "GatewayError", "GatewayTimeout", "ProviderPayment", "ProviderRefund", "gateway_for"]
