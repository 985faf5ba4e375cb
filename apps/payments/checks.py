"""System checks of the payment settings (`manage.py check`, run before migrations and
by the development server). Production settings refuse the same at start-up
(config/settings/production.py); these also catch a development backend under another
name (a subclass, an alias) and any settings module."""

from django.conf import settings
from django.core import checks
from django.utils.module_loading import import_string


@checks.register(checks.Tags.security)
def sms_backend_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Without ALLOW_TEST_PAYMENTS the SMS backend must send: a console or in-memory one
    would write members' direct-debit codes to the log and send them nothing."""
    from apps.payments.sms import DEFAULT_BACKEND

    path = getattr(settings, "SMS_BACKEND", DEFAULT_BACKEND)
    try:
        backend = import_string(path)
    except ImportError:
        return [checks.Error(f"SMS_BACKEND {path!r} cannot be imported.", id="payments.E001")]
    if getattr(backend, "development", False) and not settings.ALLOW_TEST_PAYMENTS:
        return [
            checks.Error(
                f"SMS_BACKEND {path!r} sends no text messages, and ALLOW_TEST_PAYMENTS is off.",
                hint="Configure a backend that sends, or set ALLOW_TEST_PAYMENTS=1 on a test deployment.",
                id="payments.E002",
            )
        ]
    return []
