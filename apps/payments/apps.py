from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    name = "apps.payments"
    label = "payments"
    # What a site sells lives beside the site in the public schema, edited in the
    # operators' admin; every other model of the app in each site's schema
    # (apps.tenants.routers).
    public_models = ("creditpackage", "creditpackageprice", "discountcode")

    def ready(self) -> None:
        # Up to accounts: the member's payments join "Download my data" (apps.payments.export),
        # so accounts imports no payments module for it.
        from apps.accounts.services.export import EXPORT_SECTIONS, export_section
        from apps.payments.export import payments_section

        if payments_section not in EXPORT_SECTIONS:
            export_section(payments_section)

        # The TimeBonus island's strings (apps.payments.discounts, default layout).
        from apps.common.islands import island_strings_register
        from apps.payments.discounts import time_bonus_strings

        island_strings_register("TimeBonus", time_bonus_strings)

        # The Checkout island's strings (apps.payments.views_credits: /credits, /credits/<id>).
        from apps.payments.views_credits import checkout_strings

        island_strings_register("Checkout", checkout_strings)

        # A new site sells the default credit packages (apps.payments.packages).
        from apps.payments.packages import packages_default_ensure
        from apps.tenants.services import site_defaults_register

        site_defaults_register(packages_default_ensure)

        # The settings checks: the SMS backend, test payments and the gateways (apps.payments.checks).
        from apps.payments import checks  # noqa: F401
