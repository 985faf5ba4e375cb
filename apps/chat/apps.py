from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "apps.chat"
    label = "chat"

    def ready(self) -> None:
        from apps.accounts.selectors import member_totals_register
        from apps.accounts.services.signup import member_confirmed_register

        member_totals_register(unread_messages_total)

        # Logging out closes the sockets opened with that session (apps.chat.events).
        from django.contrib.auth.signals import user_logged_out

        from apps.chat.events import member_logged_out

        user_logged_out.connect(member_logged_out, dispatch_uid="chat-sockets-close-on-logout")

        # A changed password, status or active flag, and the end of all the member's
        # sessions, make every socket of the member check its session (apps.chat.events).
        from django.db.models.signals import post_init, post_save

        from apps.accounts.models import User
        from apps.accounts.signals import sessions_ended
        from apps.chat.events import member_auth_changed, member_auth_remember, member_sessions_ended

        post_init.connect(member_auth_remember, sender=User, dispatch_uid="chat-auth-remember")
        post_save.connect(member_auth_changed, sender=User, dispatch_uid="chat-auth-changed")
        sessions_ended.connect(member_sessions_ended, dispatch_uid="chat-sessions-ended")

        # Chat photos go with an erased member's conversations.
        from apps.accounts.services.deletion import member_file_eraser_register

        member_file_eraser_register(member_chat_files_erase)

        # The Chat island's strings (apps.chat.views: /chats, /chats/<id>).
        from apps.chat.views import chat_strings
        from apps.common.islands import island_strings_register

        island_strings_register("Chat", chat_strings)
        # Messages held for a member who had not confirmed the e-mail address, and the
        # messages they wrote while signing up, go out when they confirm.
        member_confirmed_register(member_confirmed)

        from apps.accounts.services.export import EXPORT_FILES, EXPORT_SECTIONS, export_files, export_section
        from apps.chat.export import conversations_section, messages_section, photo_files

        # Replaces the accounts app's empty "messages" section; the conversations as the
        # member saw them; the sent photos' files too.
        if messages_section not in EXPORT_SECTIONS:
            export_section(messages_section)
        if conversations_section not in EXPORT_SECTIONS:
            export_section(conversations_section)
        if photo_files not in EXPORT_FILES:
            export_files(photo_files)


def unread_messages_total(user) -> dict:
    """The top bar's "unreadMessages" count (spec §9: the badge caps it at 99+)."""
    from apps.chat.selectors import unread_total

    return {"unreadMessages": unread_total(user=user)}


def member_confirmed(user) -> None:
    from apps.chat.services import chat_release_held

    chat_release_held(user=user)


def member_chat_files_erase(*, user) -> None:
    from apps.chat.services import member_chat_files_erase as erase

    erase(user=user)
