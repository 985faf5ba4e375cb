"""Download my data (issue 6 item 5): the member's ledger ("credits") and payments with
their refunds ("payments") are in data.json, and nobody else's."""

import io
import json
import zipfile

import pytest
from django.utils import timezone

from apps.accounts.services.export import member_export_data
from apps.accounts.tests.helpers_settings import logged_in, member_create
from apps.credits.models import EntryKind
from apps.credits.services import credits_adjust, credits_grant, credits_spend, credits_take_back
from apps.payments.models import Payment, Refund
from conftest import on_site

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


def paid_payment(user, *, credits: int = 20, amount: int = 1495, **fields) -> Payment:
    values = {
        "package_id": 1,
        "currency": "EUR",
        "method": "ideal",
        "gateway": "sandbox",
        "status": "paid",
        "paid_at": timezone.now(),
        **fields,
    }
    return Payment.objects.create(user=user, credits=credits, list_amount=amount, amount=amount, **values)


@pytest.fixture
def anna_with_history(site):
    anna = member_create(site)
    with on_site(site):
        payment = paid_payment(anna, discount_code="WELCOME25")
        credits_grant(user=anna, credits=20, kind=EntryKind.PURCHASE, key=f"purchase:{payment.pk}", payment=payment)
        credits_spend(user=anna, credits=3, kind=EntryKind.MESSAGE, reference="message:1")
        Refund.objects.create(payment=payment, credits=10, amount=747, requested_by="member", status="refunded")
        credits_take_back(user=anna, credits=10, kind=EntryKind.REFUND, key="refund:1", payment=payment)
        credits_adjust(user=anna, credits=2, staff_name="carla", note="Goodwill")
        paid_payment(anna, credits=50, amount=2995, status="failed", paid_at=None, method="paypal")
    return anna, payment


def test_the_export_has_the_members_ledger(site, anna_with_history):
    anna, payment = anna_with_history
    with on_site(site):
        data = member_export_data(user=anna)
    rows = [(row["kind"], row["credits"], row["balance_after"], row["payment"]) for row in data["credits"]]
    assert rows == [
        ("purchase", 20, 20, payment.public_id),
        ("message", -3, 17, None),
        ("refund", -10, 7, payment.public_id),
        ("adjustment", 2, 9, None),
    ]
    assert data["credits"][1]["reference"] == "message:1"
    assert data["credits"][3]["note"] == "Goodwill"
    assert all("staff_name" not in row for row in data["credits"])
    assert all(row["created"] for row in data["credits"])


def test_the_export_has_the_members_payments_and_refunds(site, anna_with_history):
    anna, payment = anna_with_history
    with on_site(site):
        data = member_export_data(user=anna)
    first, failed = data["purchases"]
    assert first["public_id"] == payment.public_id
    assert (first["credits"], first["amount"], first["currency"], first["method"], first["status"]) == (
        20,
        1495,
        "EUR",
        "ideal",
        "paid",
    )
    assert first["discount_code"] == "WELCOME25" and first["created"] and first["paid_at"]
    assert [(r["credits"], r["amount"], r["status"]) for r in first["refunds"]] == [(10, 747, "refunded")]
    assert (failed["credits"], failed["amount"], failed["status"], failed["method"]) == (50, 2995, "failed", "paypal")
    assert failed["refunds"] == [] and failed["paid_at"] is None


def test_nothing_of_other_members(site, anna_with_history):
    bob = member_create(site, email="bob@example.com", name="Bob")
    with on_site(site):
        data = member_export_data(user=bob)
    assert data["credits"] == [] and data["purchases"] == []


def test_the_download_carries_both_sections(site, client_for, anna_with_history):
    anna, payment = anna_with_history
    response = logged_in(site, client_for, anna).post("/notifications/export")
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    data = json.loads(archive.read("data.json"))
    assert [row["kind"] for row in data["credits"]] == ["purchase", "message", "refund", "adjustment"]
    assert data["purchases"][0]["public_id"] == payment.public_id
