from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    name = "apps.payments"
    label = "payments"

    def ready(self) -> None:
        # The member's payments in "Download my data" (apps.payments.export).
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

        # The settings checks: the SMS backend and test payments (apps.payments.checks).
        from apps.payments import checks  # noqa: F401
