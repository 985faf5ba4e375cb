from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "apps.chat"
    label = "chat"

    def ready(self) -> None:
        from apps.accounts.selectors import member_totals_register
        from apps.accounts.services.signup import member_confirmed_register

        member_totals_register(unread_messages_total)
        # Messages held for a member who had not confirmed the e-mail address, and the
        # messages they wrote while signing up, go out when they confirm.
        member_confirmed_register(member_confirmed)

        from apps.accounts.services.export import EXPORT_SECTIONS, export_section
        from apps.chat.export import messages_section

        # Replaces the accounts app's empty "messages" section.
        if messages_section not in EXPORT_SECTIONS:
            export_section(messages_section)


def unread_messages_total(user) -> dict:
    """The top bar's "unreadMessages" count (spec §9: the badge caps it at 99+)."""
    from apps.chat.selectors import unread_total

    return {"unreadMessages": unread_total(user=user)}


def member_confirmed(user) -> None:
    from apps.chat.services import chat_release_held

    chat_release_held(user=user)
