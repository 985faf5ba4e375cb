"""Payment gateways: one interface (base.Gateway), its implementations (sandbox, mollie),
and the registry that loads the one a site uses by its dotted path in
settings.PAYMENT_GATEWAYS (registry.gateway_for)."""
