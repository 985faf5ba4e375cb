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
    from apps.payments.sms import TwilioBackend

    if isinstance(backend, type) and issubclass(backend, TwilioBackend):
        missing = [
            name for name in ("TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_SENDER") if not getattr(settings, name)
        ]
        if missing:
            return [
                checks.Error(
                    f"SMS_BACKEND {path!r} needs {', '.join(missing)}.",
                    hint="Set the deployment's Twilio account (docs/deploy.md).",
                    id="payments.E005",
                )
            ]
    if getattr(backend, "development", False) and not settings.ALLOW_TEST_PAYMENTS:
        return [
            checks.Error(
                f"SMS_BACKEND {path!r} sends no text messages, and ALLOW_TEST_PAYMENTS is off.",
                hint="Configure a backend that sends, or set ALLOW_TEST_PAYMENTS=1 on a test deployment.",
                id="payments.E002",
            )
        ]
    return []


@checks.register()
def gateways_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Every gateway a site may choose (Site.payment_gateway) has a class in
    PAYMENT_GATEWAYS that can be imported: a missing one would only show when a member
    pays on such a site."""
    from apps.tenants.models import Site

    errors: list[checks.CheckMessage] = []
    for name, _label in Site._meta.get_field("payment_gateway").choices:
        path = settings.PAYMENT_GATEWAYS.get(name)
        if path is None:
            errors.append(
                checks.Error(f"PAYMENT_GATEWAYS has no gateway {name!r}, which sites may choose.", id="payments.E003")
            )
            continue
        try:
            import_string(path)
        except ImportError:
            errors.append(checks.Error(f"PAYMENT_GATEWAYS[{name!r}] {path!r} cannot be imported.", id="payments.E004"))
    return errors
