"""`manage.py credits_check` (issue 6 item 4): compares every member's cached balance
with the ledger on every site (or --site), reports the mismatches, --fix rebuilds them."""

import io

import pytest
from django.core.management import CommandError, call_command

from apps.accounts.models import User
from apps.credits.models import EntryKind
from apps.credits.services import credits_grant, credits_spend
from conftest import on_site

pytestmark = pytest.mark.django_db


def check(*args: str) -> str:
    out = io.StringIO()
    call_command("credits_check", *args, stdout=out)
    return out.getvalue()


def member_with_credits(site, name: str, credits: int) -> User:
    with on_site(site):
        user = User.objects.create_user(name, f"{name.lower()}@example.com", "a-Long-passphrase-42")
        credits_grant(user=user, credits=credits, kind=EntryKind.PURCHASE, key=f"purchase:{name}")
        credits_spend(user=user, credits=1, kind=EntryKind.MESSAGE)
    return user


def corrupt(site, user: User, credits: int) -> None:
    with on_site(site):
        User.objects.filter(pk=user.pk).update(credits=credits)


def balance(site, user: User) -> int:
    with on_site(site):
        return User.objects.get(pk=user.pk).credits


def test_all_balances_match(two_sites):
    site, gay_site = two_sites
    member_with_credits(site, "Anna", 10)
    member_with_credits(gay_site, "Bob", 5)
    out = check()
    assert "All balances match the ledger" in out
    assert site.schema_name in out and gay_site.schema_name in out


def test_mismatches_are_reported_on_every_site(two_sites):
    site, gay_site = two_sites
    anna = member_with_credits(site, "Anna", 10)
    bob = member_with_credits(gay_site, "Bob", 5)
    corrupt(site, anna, 50)
    corrupt(gay_site, bob, 0)
    out = io.StringIO()
    with pytest.raises(CommandError, match="2 balance"):
        call_command("credits_check", stdout=out)
    lines = out.getvalue().splitlines()
    assert f"{site.schema_name}: member {anna.pk} cached 50, ledger 9" in lines
    assert f"{gay_site.schema_name}: member {bob.pk} cached 0, ledger 4" in lines
    assert balance(site, anna) == 50  # only reported


def test_a_member_without_entries_but_credits_is_a_mismatch(site):
    with on_site(site):
        user = User.objects.create_user("Cleo", "cleo@example.com", "a-Long-passphrase-42", credits=7)
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("credits_check", "--site", site.schema_name, stdout=out)
    assert f"member {user.pk} cached 7, ledger 0" in out.getvalue()


def test_fix_rebuilds_from_the_ledger(two_sites):
    site, gay_site = two_sites
    anna = member_with_credits(site, "Anna", 10)
    bob = member_with_credits(gay_site, "Bob", 5)
    corrupt(site, anna, 50)
    corrupt(gay_site, bob, 0)
    out = check("--fix")
    assert f"{site.schema_name}: member {anna.pk} cached 50, ledger 9 -> rebuilt (50 -> 9)" in out
    assert "Rebuilt 2 balance(s) from the ledger." in out
    assert (balance(site, anna), balance(gay_site, bob)) == (9, 4)
    assert "All balances match the ledger" in check()


def test_one_site_only(two_sites):
    site, gay_site = two_sites
    bob = member_with_credits(gay_site, "Bob", 5)
    corrupt(gay_site, bob, 1)
    out = check("--site", site.schema_name)
    assert "All balances match the ledger" in out and gay_site.schema_name not in out
    with pytest.raises(CommandError):
        check("--site", gay_site.schema_name)
    check("--site", gay_site.schema_name, "--fix")
    assert balance(gay_site, bob) == 4


def test_an_unknown_site(db):
    with pytest.raises(CommandError, match="No site with the schema 'nowhere'"):
        check("--site", "nowhere")
    with pytest.raises(CommandError, match="No site"):
        check("--site", "public")
