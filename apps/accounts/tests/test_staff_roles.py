"""Issue 15 (operators): staff roles as Django groups with permissions, kept in code
(apps.accounts.staff.ROLES) and applied after every migration of the public schema.
Operators handle sites and what they sell; support handles members, moderation,
complaints and money; each sees only that in the admin."""

import io

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from apps.accounts import staff as staff_roles
from apps.accounts.models import User
from apps.payments.models import CreditPackage, DiscountCode
from apps.tenants.models import Campaign, Company, Gift, MemberDirectoryEntry, Site
from tests.staff import STAFF_PASSWORD, staff_client, staff_member, totp_code

pytestmark = pytest.mark.django_db

# What operators handle: (admin changelist, the model's name on the index).
OPERATOR_PAGES = {
    "/admin/tenants/site/": "Sites",
    "/admin/tenants/company/": "Companies",
    "/admin/payments/creditpackage/": "Credit packages",
    "/admin/tenants/gift/": "Gifts",
    "/admin/payments/discountcode/": "Discount codes",
    "/admin/tenants/campaign/": "Campaigns",
}
# What support handles.
SUPPORT_PAGES = {
    "/admin/support/member/": "Members",
    "/admin/moderation/photoreview/": "Photo moderation",
    "/admin/moderation/complaintcase/": "Complaints queue",
    "/admin/support/auditentry/": "Audit trail",
}


def operator_pages() -> set[str]:
    """The operators' changelists, with the landers' site pages and videos when their
    admin is there."""
    from django.contrib import admin

    pages = set(OPERATOR_PAGES)
    for model in admin.site._registry:
        if model._meta.app_label == "landers":
            pages.add(f"/admin/landers/{model._meta.model_name}/")
    return pages


def granted(role: str) -> set[str]:
    group = Group.objects.get(name=role)
    return {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.select_related("content_type")}


def index_links(client: Client) -> set[str]:
    body = client.get("/admin/").content.decode()
    return {url for url in (*operator_pages(), *SUPPORT_PAGES) if f'href="{url}"' in body}


@pytest.fixture
def a_site(site) -> Site:
    return site


# --- The groups --------------------------------------------------------------------


def test_the_groups_hold_exactly_the_permissions_of_the_roles():
    for role in staff_roles.ROLE_NAMES:
        assert granted(role) == set(staff_roles.ROLES[role]), role


def test_operators_and_support_share_nothing_and_only_support_touches_money():
    operators, support = granted("operators"), granted("support")
    assert not operators & support
    assert {"support.member_act", "support.money_act"} <= support
    assert not {p for p in operators if p.startswith(("support.", "moderation."))}
    assert not {p for p in operators if "memberdirectoryentry" in p}
    assert not {p for p in support if p.split(".")[1].startswith(("add_", "change_", "delete_")) and "site" in p}


def test_roles_ensure_is_idempotent_and_puts_the_code_back():
    support = Group.objects.get(name="support")
    support.permissions.add(Permission.objects.get(content_type__app_label="tenants", codename="change_site"))
    Group.objects.filter(name="operators").delete()
    staff_roles.roles_ensure()
    staff_roles.roles_ensure()
    assert Group.objects.filter(name__in=staff_roles.ROLE_NAMES).count() == 2
    assert granted("support") == set(staff_roles.ROLES["support"])
    assert granted("operators") == set(staff_roles.ROLES["operators"])


def test_a_permission_of_a_missing_app_or_model_fails_the_system_checks(monkeypatch):
    assert staff_roles.roles_check() == []
    monkeypatch.setitem(staff_roles.ROLES, "support", [*staff_roles.ROLES["support"], "nosuchapp.view_thing"])
    monkeypatch.setitem(staff_roles.ROLES, "operators", [*staff_roles.ROLES["operators"], "tenants.fly_site"])
    errors = {error.id: error.msg for error in staff_roles.roles_check()}
    assert set(errors) == {"staff.E001", "staff.E002"}
    assert "nosuchapp" in errors["staff.E001"] and "tenants.fly_site" in errors["staff.E002"]
    with pytest.raises(RuntimeError, match=r"tenants\.fly_site"):
        staff_roles.roles_ensure()


# --- What each role sees in the admin ------------------------------------------------


def test_support_does_not_see_or_reach_what_operators_handle(a_site):
    client = staff_client(staff_member("support"))
    assert index_links(client) == set(SUPPORT_PAGES)
    for url in operator_pages():
        assert client.get(url).status_code == 403, url
        assert client.get(f"{url}add/").status_code == 403, url
    # Sites (with their domains and minimum message costs inline), companies, packages.
    company = Company.objects.create(name="Acme", address="Street 1", city="Utrecht", country="NL")
    package = CreditPackage.objects.filter(site=a_site).first()
    gift = Gift.objects.filter(site=a_site).first()
    code = DiscountCode.objects.create(site=a_site, code="TEN", value_percentage=10)
    for url, pk in (
        ("/admin/tenants/site/", a_site.pk),
        ("/admin/tenants/company/", company.pk),
        ("/admin/payments/creditpackage/", package.pk),
        ("/admin/tenants/gift/", gift.pk),
        ("/admin/payments/discountcode/", code.pk),
    ):
        assert client.get(f"{url}{pk}/change/").status_code == 403, url
        assert client.post(f"{url}{pk}/change/", {"name": "Changed"}).status_code == 403, url
        assert client.get(f"{url}{pk}/delete/").status_code == 403, url
        assert client.post(f"{url}{pk}/delete/", {"post": "yes"}).status_code == 403, url
    assert client.post("/admin/tenants/site/add/", {"name": "Mine"}).status_code == 403
    a_site.refresh_from_db()
    assert a_site.name != "Changed" and Company.objects.filter(pk=company.pk).exists()
    assert Site.objects.filter(name="Mine").count() == 0


def test_support_sees_the_members_the_queues_and_the_trail():
    client = staff_client(staff_member("support"))
    for url in SUPPORT_PAGES:
        assert client.get(url).status_code == 200, url


def test_operators_do_not_see_or_reach_members_money_moderation_or_the_trail(site):
    client = staff_client(staff_member("operators"))
    assert index_links(client) == operator_pages()
    for url in operator_pages():
        assert client.get(url).status_code == 200, url
    for url in SUPPORT_PAGES:
        assert client.get(url).status_code == 403, url
    # A member of a site in the directory: its page and its money are closed to operators.
    with_entry = MemberDirectoryEntry.objects.create(
        site=site, member_id=424242, email="m@example.com", name="Someone", status="active"
    )
    for url in (
        f"/admin/support/member/{with_entry.pk}/change/",
        f"/admin/support/member/{with_entry.pk}/act/credits/",
    ):
        assert client.get(url).status_code in (403, 404), url


def test_the_changelists_offer_operators_their_actions(site):
    operators = staff_client(staff_member("operators"))
    body = operators.get("/admin/tenants/site/").content.decode()
    assert 'name="action"' in body and "delete_selected" in body
    Campaign.objects.create(site=site, title="News", body="Hello")
    campaigns = operators.get("/admin/tenants/campaign/").content.decode()
    assert 'value="send"' in campaigns


def test_a_superuser_sees_everything():
    client = staff_client(staff_member("superuser"))
    assert index_links(client) == set(SUPPORT_PAGES) | operator_pages()


# --- staff_create -----------------------------------------------------------------


def test_staff_create_makes_a_staff_member_of_a_role_with_a_password_shown_once():
    out = io.StringIO()
    call_command("staff_create", "--role", "support", "agent7", "--email", "agent7@example.com", stdout=out)
    user = User.objects.get(username="agent7")
    assert user.is_staff and not user.is_superuser and user.email == "agent7@example.com"
    assert list(user.groups.values_list("name", flat=True)) == ["support"]
    password = out.getvalue().split("Password (shown once): ")[1].split()[0]
    assert user.check_password(password) and len(password) >= 16
    # The first login: the set-up link it printed, the password, then the enrolment.
    link = out.getvalue().split("valid 24 h): ")[1].split()[0]
    assert link.startswith("http://admin.localhost/admin/login/enrol/")
    client = Client(HTTP_HOST="admin.localhost")
    client.get(link.removeprefix("http://admin.localhost"))
    response = client.post("/admin/login/", {"username": "agent7", "password": password, "next": "/admin/"})
    assert response["Location"].startswith("/admin/login/enrol/")


def test_staff_create_reads_a_password_from_stdin():
    out = io.StringIO()
    call_command(
        "staff_create",
        "--role",
        "operators",
        "ops7",
        "--password-stdin",
        stdin=io.StringIO("a-Good-long-passphrase-9\n"),
        stdout=out,
    )
    user = User.objects.get(username="ops7")
    assert user.check_password("a-Good-long-passphrase-9")
    assert "a-Good-long-passphrase-9" not in out.getvalue()
    assert list(user.groups.values_list("name", flat=True)) == ["operators"]


def test_staff_create_refuses_bad_input():
    staff_member("operators", "taken")
    with pytest.raises(CommandError, match="already exists"):
        call_command("staff_create", "--role", "operators", "taken", stdout=io.StringIO())
    with pytest.raises(CommandError):
        call_command("staff_create", "--role", "root", "x", stdout=io.StringIO())
    with pytest.raises(CommandError, match="password"):
        call_command("staff_create", "--role", "support", "weak", "--password-stdin", stdin=io.StringIO("123\n"))


def test_a_staff_member_of_a_role_logs_in_with_password_and_code():
    user = staff_member("support")
    client = Client(HTTP_HOST="admin.localhost")
    client.post("/admin/login/", {"username": user.username, "password": STAFF_PASSWORD, "next": "/admin/"})
    client.post("/admin/login/code/", {"code": totp_code(user), "next": "/admin/"})
    assert index_links(client) == set(SUPPORT_PAGES)


# --- The staff page (superusers) ----------------------------------------------------


def test_only_superusers_manage_staff():
    for role in ("operators", "support"):
        assert staff_client(staff_member(role)).get("/admin/accounts/user/").status_code == 403
    client = staff_client(staff_member("superuser"))
    agent = staff_member("support", "agent-page")
    body = client.get("/admin/accounts/user/").content.decode()
    assert "agent-page" in body and "support" in body
    change = client.get(f"/admin/accounts/user/{agent.pk}/change/").content.decode()
    assert "otp" not in change.lower() and "key" not in change.lower()


def test_a_superuser_adds_a_staff_member_and_gives_a_role():
    client = staff_client(staff_member("superuser"))
    response = client.post(
        "/admin/accounts/user/add/",
        {
            "username": "newagent",
            "email": "newagent@example.com",
            "usable_password": "true",
            "password1": "a-Good-long-passphrase-3",
            "password2": "a-Good-long-passphrase-3",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    user = User.objects.get(username="newagent")
    assert user.is_staff and not user.is_superuser
    support = Group.objects.get(name="support")
    response = client.post(
        f"/admin/accounts/user/{user.pk}/change/",
        {
            "username": "newagent",
            "email": "newagent@example.com",
            "is_active": "on",
            "is_staff": "on",
            "groups": [support.pk],
        },
    )
    assert response.status_code == 302
    assert list(user.groups.all()) == [support]


def test_resetting_the_second_step_asks_for_a_new_enrolment(django_capture_on_commit_callbacks, mailoutbox):
    from django_otp.plugins.otp_totp.models import TOTPDevice

    client = staff_client(staff_member("superuser"))
    agent = staff_member("support")
    agent_client = staff_client(agent)
    assert agent_client.get("/admin/").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/accounts/user/", {"action": "second_step_reset", "_selected_action": [agent.pk]}, follow=True
        )
    assert "gets an e-mail with a link to set up the second step again" in response.content.decode()
    assert not TOTPDevice.objects.filter(user=agent).exists()
    # Its open session is no longer verified; the next login enrols again, with the
    # link of the mail only.
    assert agent_client.get("/admin/").status_code == 302
    fresh = Client(HTTP_HOST="admin.localhost")
    fresh.get("/admin/login/enrol/" + mailoutbox[-1].body.split("/admin/login/enrol/")[1].split()[0])
    response = fresh.post("/admin/login/", {"username": agent.username, "password": STAFF_PASSWORD, "next": "/admin/"})
    assert response["Location"].startswith("/admin/login/enrol/")
