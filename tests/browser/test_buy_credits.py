"""Buying credits in a real browser, at phone and desktop widths (issue 6 "Browser test"):
a member in the first 4 hours sees the time bonus's 25 % off on /credits, pays a package
on the sandbox gateway's checkout, comes back to "completed" with the credits and premium
(the top bar's "Get Premium" becomes "Credits"); then a second purchase fails on the
sandbox, and the member pays it with another method."""

import re

import pytest
from playwright.sync_api import expect

from apps.payments.models import CreditPackage
from tests.browser.helpers import log_in, member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=False)]


def is_phone(page) -> bool:
    return page.viewport_size["width"] < 576


def package_id(site, credits: int) -> int:
    return CreditPackage.objects.get(site=site, credits=credits).pk


def pay_on_the_sandbox(page, action: str) -> None:
    page.wait_for_url(re.compile(r"/sandbox/checkout/"))
    page.get_by_test_id(f"sandbox-{action}").click()
    page.wait_for_url(re.compile(r"/credits/\d+/\w+\?payment="))


def choose(page, method: str) -> None:
    page.get_by_test_id(f"method-{method}").click()
    expect(page.get_by_test_id(f"method-{method}")).to_have_attribute("data-chosen", "true")


def test_buy_with_the_time_bonus_then_fail_and_pay_another_way(site, site_server, page):
    email, _profile = member(site, "Buyer")  # signed up just now: the time bonus runs
    log_in(page, site_server, email)
    topbar_credits = page.get_by_test_id("topbar-credits")
    expect(topbar_credits).to_have_text(re.compile(r"^\s*Get Premium"))
    expect(page.get_by_test_id("badge-credits")).to_have_text("0")

    # /credits: the packages at 25 % off, the list price struck through.
    page.goto(site_server.url("localhost", "/credits"))
    expect(page.get_by_test_id("credits-discount")).to_contain_text("TIMEBONUS25")
    fifty = page.get_by_test_id(f"package-{package_id(site, 50)}")
    expect(fifty).to_have_attribute("data-highlighted", "true")
    expect(fifty.get_by_test_id("package-price")).to_have_text("£19.46")
    expect(fifty.get_by_test_id("package-list-price")).to_have_text(re.compile(r"£25\.95$"))
    expect(page.get_by_test_id("credits-premium-pitch")).to_be_visible()

    # Buy: the payment page, a method, Pay, the sandbox's checkout.
    fifty.get_by_test_id(f"package-buy-{package_id(site, 50)}").click()
    page.wait_for_url(f"**/credits/{package_id(site, 50)}")
    expect(page.get_by_test_id("checkout-price")).to_have_text("£19.46")
    choose(page, "visa")
    assert page.url.endswith(f"/credits/{package_id(site, 50)}/visa")
    pay = page.get_by_test_id("checkout-pay")
    expect(pay).to_have_text("Pay £19.46")
    pay.click()
    page.wait_for_url(re.compile(r"/sandbox/checkout/"))
    expect(page.get_by_test_id("sandbox-amount")).to_contain_text("19.46")
    pay_on_the_sandbox(page, "pay")

    # Back on the site: completed, the credits, premium, the top bar.
    completed = page.get_by_test_id("payment-completed")
    expect(completed).to_be_visible(timeout=20_000)
    expect(page.get_by_test_id("credits-toast")).to_contain_text("50 credits added")
    if is_phone(page):  # the toast sits above the bottom bar, not under it
        toast, bar = (
            page.get_by_test_id("credits-toast").bounding_box(),
            page.get_by_test_id("bottom-nav").bounding_box(),
        )
        assert toast["y"] + toast["height"] <= bar["y"], (toast, bar)
    expect(page.get_by_test_id("payment-balance")).to_have_text("You now have 50 credits.")
    expect(page.get_by_test_id("payment-premium")).to_contain_text("You are now a premium member.")
    expect(topbar_credits).to_have_text(re.compile(r"^\s*Credits"))
    expect(topbar_credits).to_have_attribute("href", "/credits/repeat-order")
    expect(page.get_by_test_id("badge-credits")).to_have_count(0)
    if is_phone(page):  # the main navigation is the bottom bar
        bottom_credits = page.get_by_test_id("bottom-nav-credits")
        expect(bottom_credits).to_be_visible()
        expect(bottom_credits).to_have_attribute("href", "/credits/repeat-order")
        expect(bottom_credits).to_contain_text("Credits")
        expect(page.get_by_test_id("bottom-badge-credits")).to_have_count(0)
    else:
        expect(topbar_credits).to_be_visible()
    # The same after a reload (the server's own top bar).
    page.reload()
    expect(page.get_by_test_id("payment-completed")).to_be_visible()
    expect(page.get_by_test_id("topbar-credits")).to_have_text(re.compile(r"^\s*Credits"))

    # A second purchase, now at the list price: it fails on the sandbox.
    page.goto(site_server.url("localhost", "/credits"))
    twenty = page.get_by_test_id(f"package-{package_id(site, 20)}")
    expect(twenty.get_by_test_id("package-price")).to_have_text("£12.95")
    expect(page.get_by_test_id("credits-repeat-order")).to_be_visible()  # the card is stored
    twenty.get_by_test_id(f"package-buy-{package_id(site, 20)}").click()
    choose(page, "mastercard")
    page.get_by_test_id("checkout-pay").click()
    pay_on_the_sandbox(page, "fail")
    expect(page.get_by_test_id("payment-failed-message")).to_have_text(
        "Payment failed or has been cancelled.", timeout=20_000
    )
    expect(page.get_by_test_id("payment-retry")).to_have_text("Try again with Mastercard")

    # Another method: PayPal, paid.
    choose(page, "paypal")
    page.get_by_test_id("checkout-pay").click()
    page.wait_for_url(re.compile(r"/sandbox/checkout/"))
    expect(page.get_by_test_id("sandbox-method")).to_have_text("PayPal")
    pay_on_the_sandbox(page, "pay")
    expect(page.get_by_test_id("payment-completed")).to_be_visible(timeout=20_000)
    assert "/paypal?payment=" in page.url
    expect(page.get_by_test_id("credits-toast")).to_contain_text("20 credits added")
    expect(page.get_by_test_id("payment-balance")).to_have_text("You now have 70 credits.")
