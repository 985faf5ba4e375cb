"""The gateway registry: the interface knows no gateway, the registry loads each by its
dotted path in PAYMENT_GATEWAYS, and one function chooses a site's gateway, also for a
payment an earlier gateway of the site took."""

import ast
from pathlib import Path

import pytest
from django.test import override_settings

import apps.payments.gateways.base as base
from apps.payments.checks import gateways_check
from apps.payments.gateways.base import GatewayError, ProviderPayment
from apps.payments.gateways.mollie import MollieGateway
from apps.payments.gateways.registry import gateway_class, gateway_for
from apps.payments.gateways.sandbox import SandboxGateway, sandbox_checkout_decide
from apps.payments.models import PaymentStatus
from apps.payments.services import payment_sync
from apps.payments.tests.helpers_core import buyer, fresh, start
from apps.tenants.models import Site
from conftest import on_site

pytestmark = pytest.mark.django_db

MOLLIE_KEY = "test_" + "r" * 30


class RecordingGateway:
    """A gateway that exists only in this module, to show the registry loads any class
    named in the settings."""

    name = "recording"

    def __init__(self, site: Site) -> None:
        self.site = site

    @classmethod
    def for_site(cls, site: Site) -> "RecordingGateway":
        return cls(site)

    def payment_fetch(self, provider_id: str) -> ProviderPayment:
        return ProviderPayment(id=provider_id, status="paid", amount=0, currency="EUR")


def test_the_interface_imports_no_gateway():
    tree = ast.parse(Path(base.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {name for name in imported if name and name.startswith("apps.payments")}


def test_the_site_setting_chooses_the_gateway_with_the_sites_key(site):
    assert type(gateway_for(site)) is SandboxGateway
    assert gateway_for(site).site == site
    site.payment_gateway, site.mollie_api_key = "mollie", MOLLIE_KEY
    chosen = gateway_for(site)
    assert type(chosen) is MollieGateway and chosen.name == "mollie"
    assert not chosen._key_error  # the site's own key was set on the client


def test_a_gateway_is_loaded_by_its_path_in_the_settings(site):
    gateways = {"sandbox": f"{__name__}.RecordingGateway"}
    with override_settings(PAYMENT_GATEWAYS=gateways):
        chosen = gateway_for(site)
        assert type(chosen) is RecordingGateway and chosen.site == site
        with pytest.raises(GatewayError, match="mollie"):
            gateway_class("mollie")


def test_a_payment_is_followed_at_the_gateway_that_took_it(site):
    """A site that moved from the sandbox to Mollie still follows its sandbox payments."""
    user = buyer(site)
    payment = start(site, user)
    with on_site(site):
        before = fresh(user).credits
        sandbox_checkout_decide(provider_id=payment.provider_id, action="pay")
    Site.objects.filter(pk=site.pk).update(payment_gateway="mollie", mollie_api_key=MOLLIE_KEY)
    moved = Site.objects.get(pk=site.pk)
    assert type(gateway_for(moved, name=payment.gateway)) is SandboxGateway
    with on_site(moved):
        synced = payment_sync(payment=payment)
        assert synced.status == PaymentStatus.PAID
        assert fresh(user).credits == before + payment.credits


def test_every_gateway_a_site_may_choose_must_be_configured():
    assert gateways_check() == []
    with override_settings(PAYMENT_GATEWAYS={"sandbox": "apps.payments.gateways.sandbox.SandboxGateway"}):
        assert [error.id for error in gateways_check()] == ["payments.E003"]
    with override_settings(
        PAYMENT_GATEWAYS={
            "sandbox": "apps.payments.gateways.sandbox.SandboxGateway",
            "mollie": "apps.payments.gateways.nowhere.Gateway",
        }
    ):
        assert [error.id for error in gateways_check()] == ["payments.E004"]
