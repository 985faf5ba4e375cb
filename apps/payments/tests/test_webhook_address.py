"""The sandbox's webhook reaches a site whose name does not resolve (gay.localhost in
development) when SANDBOX_WEBHOOK_ADDRESS names the server to connect to."""

import pytest

from apps.payments.tasks import payment_webhook_send

pytestmark = pytest.mark.django_db


def test_the_sandbox_webhook_connects_to_the_configured_address(site_server, settings):
    settings.SANDBOX_WEBHOOK_ADDRESS = f"127.0.0.1:{site_server.port}"
    url = f"http://gay.localhost:{site_server.port}/api/payment-webhook.php"
    # A well-formed id the site does not know: 200 and nothing changes (apps.payments.views_gateway).
    assert payment_webhook_send.apply(kwargs={"url": url, "provider_id": "tr_sbx_unknown00"}).get() is True
    settings.SANDBOX_WEBHOOK_ADDRESS = f"127.0.0.1:{site_server.port + 1 if site_server.port < 65535 else 1}"
    assert payment_webhook_send.apply(kwargs={"url": url, "provider_id": "tr_sbx_unknown00"}).get() is False
