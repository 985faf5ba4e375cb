"""The support console's member page (issue 15): found across sites by e-mail, name, id
or payment id; one page with status, profile, photos, ledger, payments, blocks,
complaints, mails and the member's audit rows; actions that each need a reason, run in
the member's site schema, are audited with before and after, and are allowed by role
(support may act on members and money, operators may do neither)."""

import io
import re
import zipfile

import pytest
from django.contrib.auth.models import Permission
from django.core import mail
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.tests.helpers_settings import member_create
from apps.credits.models import CreditEntry, EntryKind
from apps.credits.services import credits_grant, credits_spend, credits_take_back
from apps.payments.models import Payment, Refund
from apps.profiles.models import Block, Complaint, Photo, Profile
from apps.support.models import AuditEntry
from apps.tenants.models import MemberDirectoryEntry
from conftest import on_site
from tests.staff import staff_client, staff_member

pytestmark = pytest.mark.django_db

REASON = "Asked by phone, ticket 4711"


@pytest.fixture
def support() -> Client:
    return staff_client(staff_member("support", "agent"))


@pytest.fixture
def superuser() -> Client:
    return staff_client(staff_member("superuser", "operator"))


def body(response) -> str:
    return response.content.decode()


def entry_of(site, user: User) -> MemberDirectoryEntry:
    return MemberDirectoryEntry.objects.get(site=site, member_id=user.pk)


def page_url(entry) -> str:
    return f"/admin/support/member/{entry.pk}/change/"


def act_url(entry, action: str) -> str:
    return f"/admin/support/member/{entry.pk}/act/{action}/"


def stored(site, user: User) -> User:
    with on_site(site):
        return User.objects.get(pk=user.pk)


def paid_payment(user: User, *, credits: int = 20, amount: int = 1495) -> Payment:
    return Payment.objects.create(
        user=user,
        package_id=1,
        credits=credits,
        currency="EUR",
        list_amount=amount,
        amount=amount,
        method="ideal",
        gateway="sandbox",
        provider_id=f"sbx_{user.pk}_{credits}",
        status="paid",
        paid_at=timezone.now(),
    )


@pytest.fixture
def anna(site) -> User:
    """A member of the general site with a purchase, a message and a signup bonus."""
    anna = member_create(site)
    with on_site(site):
        payment = paid_payment(anna)
        credits_grant(user=anna, credits=20, kind=EntryKind.PURCHASE, key=f"purchase:{payment.pk}", payment=payment)
        credits_grant(user=anna, credits=10, kind=EntryKind.SIGNUP_BONUS, key=f"signup_bonus:{anna.pk}")
        credits_spend(user=anna, credits=3, kind=EntryKind.MESSAGE, reference="message:42")
    return anna


def last_audit(action: str) -> AuditEntry:
    return AuditEntry.objects.filter(action=action).order_by("-pk").first()


# --- Finding a member ------------------------------------------------------------------


class TestSearch:
    def test_by_email_name_id_and_payment_id_across_sites(self, support, site, gay_site, anna):
        bert = member_create(gay_site, email="bert@example.com", name="Bert")
        with on_site(site):
            payment = Payment.objects.get(user=anna)
        for term, found, missing in (
            ("anna@example.com", "anna@example.com", "bert@example.com"),
            ("Bert", "bert@example.com", "anna@example.com"),
            (str(bert.pk), "bert@example.com", None),
            (payment.public_id, "anna@example.com", "bert@example.com"),
            (payment.provider_id, "anna@example.com", "bert@example.com"),
        ):
            html = body(support.get("/admin/support/member/", {"q": term}))
            assert found in html, term
            if missing:
                assert missing not in html, term

    def test_names_and_addresses_never_look_into_every_sites_payments(self, django_assert_num_queries):
        from apps.support.selectors import payment_owners

        with django_assert_num_queries(0):
            for term in ("Annabel", "anna@example.com", "12345", "x" * 40):
                assert payment_owners(term) == []

    def test_odd_search_terms_answer_an_empty_list(self, support, anna):
        for term in ("'; DROP TABLE x; --", "x" * 500, "../..", "%00"):
            response = support.get("/admin/support/member/", {"q": term})
            assert response.status_code == 200
            assert "anna@example.com" not in body(response)
        assert support.get("/admin/support/member/", {"q": "a\x00b"}).status_code == 400


# --- The page --------------------------------------------------------------------------


class TestMemberPage:
    def test_shows_status_ledger_payments_blocks_complaints_mails_and_audit(self, support, site, anna):
        bob = member_create(site, email="bob@example.com", name="Bob")
        with on_site(site):
            payment = Payment.objects.get(user=anna)
            bob_profile = Profile.objects.get(user=bob)
            Block.objects.create(blocker=anna, blocked=bob_profile)
            Complaint.objects.create(
                reporter=bob, profile=Profile.objects.get(user=anna), reason="fake", text="Not real", email=bob.email
            )
        html = body(support.get(page_url(entry_of(site, anna))))
        assert 'data-testid="support-balance">27<' in html
        assert 'data-testid="support-ledger">27<' in html and "support-ledger-differs" not in html
        assert html.count('data-testid="support-entry"') == 3
        assert "message:42" in html and "Signup bonus" in html
        assert html.count('data-testid="support-payment"') == 1
        assert payment.public_id in html and "14.95 EUR" in html
        assert "Blocked Bob" in html
        assert html.count('data-testid="support-complaint-about"') == 1 and "bob@example.com" in html
        assert "About Anna" in html  # the profile text
        assert 'name="csrfmiddlewaretoken"' in html

    def test_the_same_member_id_on_another_site_shows_that_sites_member(self, support, gay_site, anna):
        twin = member_create(gay_site, email="twin@example.com", name="Twin", pk=anna.pk)
        html = body(support.get(page_url(entry_of(gay_site, twin))))
        assert 'data-testid="support-balance">0<' in html
        assert "message:42" not in html and "No payments." in html

    def test_a_cache_that_differs_from_the_ledger_is_flagged(self, support, site, anna):
        with on_site(site):
            User.objects.filter(pk=anna.pk).update(credits=99)
        assert "support-ledger-differs" in body(support.get(page_url(entry_of(site, anna))))

    def test_a_member_gone_from_the_site_is_404(self, support, site, anna):
        entry = entry_of(site, anna)
        with on_site(site):
            CreditEntry.objects.filter(user=anna).delete()
            Payment.objects.filter(user=anna).delete()
            User.objects.filter(pk=anna.pk).delete()
        assert support.get(page_url(entry)).status_code == 404
        assert support.get("/admin/support/member/987654/change/").status_code == 404
        assert support.get("/admin/support/member/abc/change/").status_code in (302, 404)

    def test_message_contents_are_not_on_the_page(self, support, site, anna):
        from apps.chat.tests.helpers import credits_give, send

        bob = member_create(site, email="bob@example.com", name="Bob")
        credits_give(site, bob, 50)
        with on_site(site):
            bob_profile, anna_profile = Profile.objects.get(user=bob), Profile.objects.get(user=anna)
        send(site, bob_profile, anna_profile, "A very private sentence")
        assert "A very private sentence" not in body(support.get(page_url(entry_of(site, anna))))


# --- Actions -----------------------------------------------------------------------------


class TestActions:
    def test_every_action_needs_a_reason(self, support, site, anna):
        entry = entry_of(site, anna)
        for action, data in (
            ("credits", {"credits": "5"}),
            ("password_reset", {}),
            ("profile_disable", {}),
            ("dd_block", {}),
            ("erase", {}),
        ):
            for reason in ("", "   ", "ok"):
                response = support.post(act_url(entry, action), {**data, "reason": reason})
                assert response.status_code == 400, (action, reason)
                assert "Say why" in body(response) or "This field is required." in body(response)
        member = stored(site, anna)
        assert (member.credits, member.direct_debit_blocked, member.has_usable_password()) == (27, False, True)
        assert not AuditEntry.objects.filter(member_id=anna.pk, site_id=site.pk).exists()

    def test_grant_and_take_credits_are_audited_with_before_and_after(self, support, site, anna):
        entry = entry_of(site, anna)
        response = support.post(act_url(entry, "credits"), {"credits": "15", "reason": "Goodwill after an outage"})
        assert response.status_code == 302 and response.headers["Location"] == page_url(entry)
        assert stored(site, anna).credits == 42
        with on_site(site):
            last = CreditEntry.objects.filter(user=anna).first()
        assert (last.kind, last.credits, last.note, last.staff_name) == (
            "adjustment",
            15,
            "Goodwill after an outage",
            "agent",
        )
        row = last_audit("credits.grant")
        assert (row.actor, row.site_id, row.member_id, row.reason) == (
            "agent",
            site.pk,
            anna.pk,
            "Goodwill after an outage",
        )
        assert (row.before["credits"], row.after["credits"]) == (27, 42)
        html = body(support.get(page_url(entry)))
        assert "+15 credits for Anna. Balance: 42." in html
        assert 'data-testid="support-audit-row"' in html and "Goodwill after an outage" in html
        support.post(act_url(entry, "credits"), {"credits": "-7", "reason": "Double purchase"})
        assert stored(site, anna).credits == 35 and last_audit("credits.take").after["credits"] == 35

    @pytest.mark.parametrize(
        ("credits", "message"),
        [
            ("0", "Enter a number of credits other than 0."),
            ("ten", "Enter a whole number."),
            ("-28", "You do not have enough credits"),
        ],
    )
    def test_bad_credits_change_nothing_and_say_why(self, support, site, anna, credits, message):
        response = support.post(act_url(entry_of(site, anna), "credits"), {"credits": credits, "reason": REASON})
        assert response.status_code == 400 and message in body(response)
        assert stored(site, anna).credits == 27
        assert not AuditEntry.objects.filter(member_id=anna.pk, site_id=site.pk).exists()

    def test_unfreeze_clears_the_debt(self, support, site, anna):
        with on_site(site):
            credits_take_back(user=anna, credits=40, kind=EntryKind.CHARGEBACK, key="cb")
        entry = entry_of(site, anna)
        assert 'data-testid="support-unfreeze-form"' in body(support.get(page_url(entry)))
        support.post(act_url(entry, "unfreeze"), {"reason": "Settled by phone"})
        member = stored(site, anna)
        assert (member.credits_frozen, member.credits_owed) == (False, 0)
        row = last_audit("credits.unfreeze")
        assert row.before["credits_owed"] == 13 and row.after["credits_owed"] == 0

    def test_refund_takes_the_credits_back(self, support, site, anna):
        entry = entry_of(site, anna)
        with on_site(site):
            payment = Payment.objects.get(user=anna)
        assert "Refund 14.95 EUR (20 credits)" in body(support.get(page_url(entry)))
        response = support.post(act_url(entry, "refund"), {"payment": payment.public_id, "reason": "Unhappy"})
        assert response.status_code == 302
        with on_site(site):
            refund = Refund.objects.get(payment=payment)
        assert (refund.credits, refund.amount, refund.requested_by) == (20, 1495, "agent")
        assert stored(site, anna).credits == 7
        row = last_audit("payment.refund")
        assert row.after["refund_amount"] == 1495 and row.target == f"payment {payment.public_id}"

    def test_another_members_payment_is_404(self, support, site, anna):
        bob = member_create(site, email="bob@example.com", name="Bob")
        with on_site(site):
            payment = Payment.objects.get(user=anna)
        response = support.post(
            act_url(entry_of(site, bob), "refund"), {"payment": payment.public_id, "reason": REASON}
        )
        assert response.status_code == 404

    def test_direct_debit_block_and_unblock(self, support, site, anna):
        entry = entry_of(site, anna)
        support.post(act_url(entry, "dd_block"), {"reason": "Three failed debits"})
        assert stored(site, anna).direct_debit_blocked is True
        assert "Blocked for direct debit payments." in body(support.get(page_url(entry)))
        support.post(act_url(entry, "dd_unblock"), {"reason": "Paid the open amount"})
        assert stored(site, anna).direct_debit_blocked is False
        assert [row.action for row in AuditEntry.objects.filter(member_id=anna.pk, site_id=site.pk)] == [
            "direct_debit.unblock",
            "direct_debit.block",
        ]

    def test_disable_and_enable_the_profile(self, support, site, anna):
        entry = entry_of(site, anna)
        support.post(act_url(entry, "profile_disable"), {"reason": "Fake photos reported"})
        with on_site(site):
            assert Profile.objects.get(user=anna).status == "disabled"
        assert last_audit("member.profile_disable").after["profile_status"] == "disabled"
        again = support.post(act_url(entry, "profile_disable"), {"reason": "Fake photos reported"})
        assert again.status_code == 400 and "already" in body(again)
        support.post(act_url(entry, "profile_enable"), {"reason": "Verified by video call"})
        with on_site(site):
            assert Profile.objects.get(user=anna).status == "active"

    def test_hide_a_photo(self, support, site, anna):
        from apps.profiles.tests.helpers_view import photos_add

        with on_site(site):
            profile = Profile.objects.get(user=anna)
        photo = photos_add(site, profile, 1)[0]
        entry = entry_of(site, anna)
        response = support.post(act_url(entry, "photo_hide"), {"photo": photo.pk, "reason": "Shows a phone number"})
        assert response.status_code == 302
        with on_site(site):
            assert Photo.objects.get(pk=photo.pk).status == "rejected"
        assert last_audit("photo.hide").target == f"photo {photo.pk}"

    def test_a_photo_of_another_member_is_404(self, support, site, anna):
        from apps.profiles.tests.helpers_view import photos_add

        bob = member_create(site, email="bob@example.com", name="Bob")
        with on_site(site):
            profile = Profile.objects.get(user=bob)
        photo = photos_add(site, profile, 1)[0]
        response = support.post(act_url(entry_of(site, anna), "photo_hide"), {"photo": photo.pk, "reason": REASON})
        assert response.status_code == 404

    def test_force_a_password_reset(self, support, site, anna, on_commit_at_once):
        entry = entry_of(site, anna)
        member = Client(HTTP_HOST="localhost")
        with on_site(site):
            member.force_login(stored(site, anna))
        assert member.get("/api/user.php").json().get("user")
        response = support.post(act_url(entry, "password_reset"), {"reason": "Account taken over"})
        assert response.status_code == 302
        assert stored(site, anna).has_usable_password() is False
        assert not member.get("/api/user.php").json().get("user")  # logged out everywhere
        assert any("anna@example.com" in message.to for message in mail.outbox)
        link = re.search(r"https?://localhost[:\d]*/reset-password/do\?key=\S+", mail.outbox[-1].body)
        assert link, mail.outbox[-1].body
        assert last_audit("member.password_reset").after["password_usable"] is False

    def test_resend_activation(self, support, site, on_commit_at_once):
        carl = member_create(site, email="carl@example.com", name="Carl", confirmed=False)
        entry = entry_of(site, carl)
        response = support.post(act_url(entry, "activation"), {"reason": "Mail went to spam"})
        assert response.status_code == 302
        assert any("carl@example.com" in message.to for message in mail.outbox)
        assert re.search(r"https?://localhost[:\d]*/", mail.outbox[-1].body)
        assert last_audit("member.activation_resend").reason == "Mail went to spam"

    def test_erase_needs_the_export_first(self, support, site, anna):
        entry = entry_of(site, anna)
        with on_site(site):
            payment = Payment.objects.get(user=anna)
        assert 'data-testid="support-export-first"' in body(support.get(page_url(entry)))
        response = support.post(act_url(entry, "erase"), {"reason": "GDPR request by mail"})
        assert response.status_code == 400 and "export first" in body(response)
        assert stored(site, anna).status == "active"
        export = support.post(act_url(entry, "export"), {"reason": "GDPR request by mail"})
        assert export.status_code == 200 and export["Content-Type"] == "application/zip"
        archive = zipfile.ZipFile(io.BytesIO(b"".join(export.streaming_content)))
        assert any(name.endswith(".json") for name in archive.namelist())
        response = support.post(act_url(entry, "erase"), {"reason": "GDPR request by mail"})
        assert response.status_code == 302 and response.headers["Location"] == "/admin/support/member/"
        with on_site(site):
            assert not User.objects.filter(pk=anna.pk).exists()
            # The ledger and the member's rows go; the payment stays for the bookkeeping,
            # with its amount and status, no longer anyone's.
            assert not CreditEntry.objects.filter(user_id=anna.pk).exists()
            kept = Payment.objects.get(pk=payment.pk)
            assert kept.user_id is None
            assert (kept.public_id, kept.amount, kept.currency, kept.status) == (payment.public_id, 1495, "EUR", "paid")
        assert not MemberDirectoryEntry.objects.filter(pk=entry.pk).exists()
        assert [row.action for row in AuditEntry.objects.filter(member_id=anna.pk, site_id=site.pk)] == [
            "member.erase",
            "member.export",
        ]

    def test_actions_are_post_only_and_unknown_actions_404(self, support, site, anna):
        entry = entry_of(site, anna)
        assert support.get(act_url(entry, "credits")).status_code == 405
        assert support.post(act_url(entry, "nonsense"), {"reason": REASON}).status_code == 404
        assert support.post("/admin/support/member/987654/act/credits/", {"reason": REASON}).status_code == 404

    def test_nul_bytes_and_lying_bodies_are_4xx(self, support, site, anna):
        entry = entry_of(site, anna)
        response = support.post(act_url(entry, "credits"), {"credits": "5\x00", "reason": "why\x00 not"})
        assert response.status_code == 400
        response = support.generic("POST", act_url(entry, "credits"), b"--x\r\n", content_type="multipart/form-data")
        assert 400 <= response.status_code < 500
        assert stored(site, anna).credits == 27

    def test_actions_are_csrf_protected(self, site, anna):
        user = staff_member("support", "csrf-agent")
        client = staff_client(user, enforce_csrf_checks=True)
        entry = entry_of(site, anna)
        assert client.post(act_url(entry, "credits"), {"credits": "5", "reason": REASON}).status_code == 403
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body(client.get(page_url(entry)))).group(1)
        response = client.post(
            act_url(entry, "credits"), {"credits": "5", "reason": REASON, "csrfmiddlewaretoken": token}
        )
        assert response.status_code == 302 and stored(site, anna).credits == 32


# --- Who may do what ---------------------------------------------------------------------


class TestRoles:
    def test_operators_cannot_touch_members_or_money(self, site, anna):
        operators = staff_client(staff_member("operators", "ops"))
        entry = entry_of(site, anna)
        assert operators.get("/admin/support/member/").status_code == 403
        assert operators.get(page_url(entry)).status_code == 403
        for action, data in (("credits", {"credits": "5"}), ("unfreeze", {}), ("dd_block", {}), ("erase", {})):
            assert operators.post(act_url(entry, action), {**data, "reason": REASON}).status_code == 403
        with on_site(site):
            payment = Payment.objects.get(user=anna)
        assert (
            operators.post(act_url(entry, "refund"), {"payment": payment.public_id, "reason": REASON}).status_code
            == 403
        )
        assert stored(site, anna).credits == 27
        assert "/admin/support/member/" not in body(operators.get("/admin/"))

    def test_staff_who_may_only_view_see_no_action_and_cannot_act(self, site, anna):
        user = staff_member("support", "viewer")
        user.groups.clear()
        user.user_permissions.add(Permission.objects.get(codename="view_member"))
        client = staff_client(user)
        entry = entry_of(site, anna)
        html = body(client.get(page_url(entry)))
        assert 'data-testid="support-balance">27<' in html
        assert "support-credits-form" not in html and "support-password_reset-form" not in html
        assert client.post(act_url(entry, "credits"), {"credits": "5", "reason": REASON}).status_code == 403
        assert client.post(act_url(entry, "password_reset"), {"reason": REASON}).status_code == 403

    def test_member_actions_without_money(self, site, anna):
        user = staff_member("support", "mod")
        user.groups.clear()
        for codename in ("view_member", "member_act"):
            user.user_permissions.add(Permission.objects.get(codename=codename))
        client = staff_client(user)
        entry = entry_of(site, anna)
        assert client.post(act_url(entry, "credits"), {"credits": "5", "reason": REASON}).status_code == 403
        assert client.post(act_url(entry, "dd_block"), {"reason": REASON}).status_code == 403
        assert client.post(act_url(entry, "profile_disable"), {"reason": REASON}).status_code == 302

    def test_visitors_are_sent_to_the_login(self, site, anna):
        client = Client(HTTP_HOST="admin.localhost")
        response = client.post(act_url(entry_of(site, anna), "credits"), {"credits": "5", "reason": REASON})
        assert response.status_code == 302 and "/admin/login/" in response.headers["Location"]
        assert stored(site, anna).credits == 27


class TestPhotos:
    def test_staff_see_a_members_photo_whatever_its_state_and_nothing_else(self, support, site, anna):
        from django.core.files.base import ContentFile

        from apps.profiles.tests.helpers_view import photos_add

        bob = member_create(site, email="bob@example.com", name="Bob")
        with on_site(site):
            anna_profile, bob_profile = Profile.objects.get(user=anna), Profile.objects.get(user=bob)
        pending = photos_add(site, anna_profile, 1, status="pending")[0]
        foreign = photos_add(site, bob_profile, 1)[0]
        from django.core.files.storage import default_storage

        with on_site(site):
            name = default_storage.save("photos/thumbs/t.jpg", ContentFile(b"\xff\xd8 thumbnail bytes"))
            Photo.objects.filter(pk=pending.pk).update(thumb=name)
        entry = entry_of(site, anna)
        html = body(support.get(page_url(entry)))
        url = f"/admin/support/member/{entry.pk}/photo/{pending.pk}/"
        assert f'src="{url}"' in html and "Waiting for approval" in html
        response = support.get(url)
        assert response.status_code == 200 and b"thumbnail bytes" in b"".join(response.streaming_content)
        assert "private" in response["Cache-Control"]
        assert support.get(f"/admin/support/member/{entry.pk}/photo/{foreign.pk}/").status_code == 404
        assert support.get(f"/admin/support/member/{entry.pk}/photo/999999/").status_code == 404
        operators = staff_client(staff_member("operators", "ops"))
        assert operators.get(url).status_code == 403


# --- The member's traffic source ---------------------------------------------------------


class TestTrafficSource:
    def test_the_page_shows_where_the_member_came_from(self, support, site, anna):
        from apps.accounts.models import SignupTracking

        with on_site(site):
            SignupTracking.objects.update_or_create(
                user=anna,
                defaults={"network": "adnet", "ref": "<b>r1</b>", "sub1": "banner", "cpc": "0.12", "lander": "gallery"},
            )
        html = body(support.get(page_url(entry_of(site, anna))))
        source = html.split('data-testid="support-traffic-source"')[1].split("</td>")[0]
        for text in ("network", "adnet", "sub1", "banner", "cpc", "0.12", "lander", "gallery"):
            assert text in source
        assert "&lt;b&gt;r1&lt;/b&gt;" in source and "<b>" not in source

    def test_a_member_who_came_on_their_own(self, support, site, anna):
        from apps.accounts.models import SignupTracking

        with on_site(site):
            SignupTracking.objects.filter(user=anna).delete()
        html = body(support.get(page_url(entry_of(site, anna))))
        assert "no traffic source" in html.split('data-testid="support-traffic-source"')[1]
