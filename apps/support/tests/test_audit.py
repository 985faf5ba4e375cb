"""The audit trail (issue 15): append-only in the database itself, written for every
change made in the operators' admin with the object before and after, searchable and
exported as CSV with the changelist's filters."""

import csv
import io

import pytest
from django.db import connection, transaction
from django.db.utils import DatabaseError

from apps.support.audit import audit_record
from apps.support.models import AuditEntry
from apps.tenants.models import Company
from tests.staff import staff_client, staff_member

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator():
    user = staff_member("superuser", "auditor")
    return user, staff_client(user)


def test_the_database_refuses_updates_deletes_and_truncate(django_user_model):
    # The application's role has no such right (test_audit_roles.py); the owner meets the
    # triggers.
    entry = audit_record(actor=None, action="test.append_only", reason="kept for ever")
    for statement in (
        "UPDATE support_auditentry SET reason = 'rewritten' WHERE id = %s",
        "DELETE FROM support_auditentry WHERE id = %s",
        "TRUNCATE support_auditentry",
    ):
        with (
            pytest.raises(DatabaseError, match="permission denied for table support_auditentry"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement, [entry.pk] if "%s" in statement else None)
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditEntry.objects.filter(pk=entry.pk).update(reason="rewritten")
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditEntry.objects.filter(pk=entry.pk).delete()
    entry.refresh_from_db()
    assert entry.reason == "kept for ever"


def test_an_admin_change_is_recorded_with_before_and_after(operator, site):
    user, client = operator
    company = Company.objects.create(name="Old name BV", address="Street 1", city="Utrecht", country="NL")
    response = client.get(f"/admin/tenants/company/{company.pk}/change/")
    assert response.status_code == 200
    form = response.context["adminform"].form
    post = {}
    for name in form.fields:
        value = form[name].value()
        if isinstance(value, list):  # trade names, VAT numbers: comma-separated
            value = ",".join(value)
        if hasattr(value, "date"):  # a split date and time
            post[f"{name}_0"], post[f"{name}_1"] = value.date().isoformat(), value.time().strftime("%H:%M:%S")
        else:
            post[name] = "" if value is None else value
    post["name"] = "New name BV"
    response = client.post(f"/admin/tenants/company/{company.pk}/change/", post)
    assert response.status_code == 302, response.context["adminform"].form.errors
    entry = AuditEntry.objects.filter(
        action="tenants.company.change", target__startswith=f"tenants.Company:{company.pk}"
    )
    entry = entry.get()
    assert entry.actor == "auditor" and entry.actor_id == user.pk
    assert entry.before["name"] == "Old name BV"
    assert entry.after["name"] == "New name BV"
    assert "Name" in str(entry.after["_changes"])


def test_admin_additions_and_deletions_are_recorded(operator):
    _user, client = operator
    company = Company.objects.create(name="Short lived BV", address="Street 1", city="Utrecht", country="NL")
    response = client.post(f"/admin/tenants/company/{company.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    deleted = AuditEntry.objects.get(
        action="tenants.company.delete", target__startswith=f"tenants.Company:{company.pk}"
    )
    assert deleted.before["name"] == "Short lived BV" and deleted.after is None


def test_secrets_never_enter_the_trail(operator, site):
    from apps.support.admin_audit import snapshot

    site.mollie_api_key = "test_" + "s" * 30
    values = snapshot(site)
    assert values["mollie_api_key"] == "(secret)"
    assert "test_sss" not in str(values)


def test_the_trail_is_read_only_in_the_admin(operator):
    _user, client = operator
    entry = audit_record(actor=None, action="test.read_only", reason="look, do not touch")
    assert client.get("/admin/support/auditentry/add/").status_code == 403
    assert client.post(f"/admin/support/auditentry/{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    page = client.get(f"/admin/support/auditentry/{entry.pk}/change/")
    assert page.status_code == 200 and b"look, do not touch" in page.content
    assert b'name="reason"' not in page.content  # shown, not editable
    assert AuditEntry.objects.filter(pk=entry.pk).exists()


def test_search_and_csv_export_follow_the_changelist(operator):
    _user, client = operator
    audit_record(actor=None, action="test.csv", member_id=424242, reason='=HYPERLINK("http://evil")')
    audit_record(actor=None, action="test.csv", member_id=515151, reason="other member", before={"credits": 1})
    page = client.get("/admin/support/auditentry/", {"q": "424242"})
    assert page.status_code == 200
    assert b"424242" in page.content and b"other member" not in page.content
    assert b"/admin/support/auditentry/csv/?q=424242" in page.content
    response = client.get("/admin/support/auditentry/csv/", {"q": "424242"})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][0] == "when"
    assert len(rows) == 2 and rows[1][4] == "424242"
    assert rows[1][7].startswith("'=")  # a formula is text in a spreadsheet
    everything = client.get("/admin/support/auditentry/csv/", {"action": "test.csv"})
    rows = list(csv.reader(io.StringIO(b"".join(everything.streaming_content).decode())))
    assert {row[4] for row in rows[1:]} == {"424242", "515151"}
    assert '{"credits": 1}' in {row[8] for row in rows[1:]}


def test_staff_without_permission_cannot_read_the_trail():
    user = staff_member("support", "nobody")
    user.groups.clear()
    client = staff_client(user)
    assert client.get("/admin/support/auditentry/").status_code == 403
    assert client.get("/admin/support/auditentry/csv/").status_code == 403
