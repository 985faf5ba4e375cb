from django.apps import AppConfig


class CreditsConfig(AppConfig):
    name = "apps.credits"
    label = "credits"

    def ready(self) -> None:
        # Up to accounts: credits join its registries (data export, a confirmed member); accounts knows no credits.
        from apps.accounts.services.export import EXPORT_SECTIONS, export_section
        from apps.accounts.services.signup import member_confirmed_register
        from apps.credits.bonus import member_confirmed
        from apps.credits.export import credits_section

        # The signup credits, when a member confirms the e-mail address (issue 6 item 2).
        member_confirmed_register(member_confirmed)
        if credits_section not in EXPORT_SECTIONS:
            export_section(credits_section)
