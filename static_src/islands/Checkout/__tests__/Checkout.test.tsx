import { act, cleanup, configure, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { configureApi, resetApiConfig } from "../../../lib/api";
import { appStore, initialAppState } from "../../../lib/store";
import { Checkout } from "../Checkout";
import { navigation } from "../CheckoutForm";
import { discounted, fill, formatMoney, perCredit } from "../money";
import { parsePayment, pollDelay, POLL_LIMIT_MS } from "../purchase";
import type { CheckoutPageProps, CheckoutStrings, Discount, PackagesProps, Payment } from "../types";

configure({ asyncUtilTimeout: 5000 });

const strings: CheckoutStrings = {
  mostPopular: "Most popular",
  perCredit: "{price} per credit",
  buy: "Buy",
  listPrice: "Was {price}",
  youPay: "You pay",
  discountTimeBonus: "Time bonus: {percentage}% off with code {code}",
  discountWelcome: "Welcome discount: {percentage}% off your first purchase",
  discountCode: "Discount code {code}: {percentage}% off",
  removeCode: "Remove code",
  codeLabel: "Discount code",
  codePlaceholder: "Enter your code",
  codeApply: "Apply",
  codeChecking: "Checking…",
  codeApplied: "Code {code} applied: {percentage}% off.",
  codeEmpty: "Enter a discount code.",
  package: "Your package",
  chooseMethod: "Choose how to pay",
  pay: "Pay {price}",
  paying: "One moment…",
  directDebitNote: "Pay by SEPA direct debit, confirmed with a code by SMS.",
  secure: "You pay on the secure page of our payment provider.",
  choosePackage: "Choose another package",
  frozen: "Your credits are on hold after a reversed payment.",
  loading: "Loading your payment…",
  pending: "Processing your payment",
  pendingHelp: "This can take a moment.",
  slow: "We have not received the result of your payment yet.",
  checkAgain: "Check again",
  completed: "Payment completed",
  premium: "You are now a premium member.",
  premiumBadge: "Premium",
  failed: "Payment failed or has been cancelled.",
  tryAgainWith: "Try again with {method}",
  tryOther: "Or choose another way to pay",
  tryAgain: "Try again",
  payPal: "Pay with PayPal",
  recurringFailed: "Your repeat order could not be charged.",
  continue: "Search members",
  transactions: "Your transactions",
  close: "Close",
  error: "An error has occurred.",
};

const urls = {
  payment: "/api/payment.php",
  discount: "/api/discountcode.php",
  credits: "/credits",
  repeatOrder: "/credits/repeat-order",
  transactions: "/transactions",
};

const timeBonus: Discount = {
  code: "TIMEBONUS25",
  percentage: 25,
  kind: "timebonus",
  expires: new Date(Date.now() + 3_600_000).toISOString(),
};

function pkg(id: number, credits: number, listAmount: number, amount = listAmount, highlighted = false) {
  return { id, credits, unit: "credits", highlighted, currency: "GBP", listAmount, amount, href: `/credits/${id}` };
}

function packagesProps(overrides: Partial<PackagesProps> = {}): PackagesProps {
  return {
    strings,
    mode: "packages",
    locale: "en",
    balance: 0,
    paidUser: false,
    frozen: false,
    urls,
    discount: null,
    code: "",
    codeDiscount: null,
    codeError: "",
    packages: [pkg(1, 20, 1295), pkg(2, 50, 2595, 2595, true), pkg(3, 120, 5195)],
    ...overrides,
  };
}

const methods = [
  { code: "visa", label: "Visa", href: "/credits/2/visa" },
  { code: "paypal", label: "PayPal", href: "/credits/2/paypal" },
  { code: "directdebit", label: "SEPA direct debit", href: "/directdebit?package=2" },
];

function checkoutProps(overrides: Partial<CheckoutPageProps> = {}): CheckoutPageProps {
  return {
    strings,
    mode: "checkout",
    locale: "en",
    balance: 10,
    paidUser: false,
    frozen: false,
    urls,
    discount: null,
    code: "",
    codeDiscount: null,
    codeError: "",
    package: { ...pkg(2, 50, 2595, 2595, true), href: "" },
    packageOnSale: true,
    methods,
    method: null,
    payment: null,
    recurring: false,
    paypalUrl: "/credits/2/paypal",
    membersUrl: "/members",
    ...overrides,
  };
}

function payment(overrides: Partial<Payment> = {}): Payment {
  return {
    id: "pay123",
    status: "loading",
    credits: 50,
    amount: 2595,
    currency: "GBP",
    method: "visa",
    package_id: 2,
    balance: 10,
    paid_user: false,
    credits_added_text: "50 credits added",
    balance_text: "You now have 60 credits.",
    ...overrides,
  };
}

function json(status: number, data: unknown): Response {
  return new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
}

function error(status: number, code: string, message: string, fields?: Record<string, string[]>): Response {
  return json(status, { error: { code, message, ...(fields ? { fields } : {}) } });
}

interface Call {
  method: string;
  path: string;
  params: Record<string, string>;
  body: unknown;
  at: number;
}

/** A fetch that records the calls and answers with `handler`. */
function fakeApi(handler: (call: Call) => Response) {
  const calls: Call[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), "http://localhost");
    const call = {
      method: init?.method ?? "GET",
      path: url.pathname,
      params: Object.fromEntries(url.searchParams),
      body: init?.body ? JSON.parse(String(init.body)) : undefined,
      at: Date.now(),
    };
    calls.push(call);
    return handler(call);
  });
  configureApi({ fetch: fetchMock as unknown as typeof fetch, baseDelayMs: 0 });
  return calls;
}

const prices = () => screen.getAllByTestId("package-price").map((el) => el.textContent);

function typeCode(value: string) {
  fireEvent.change(screen.getByTestId("discount-input"), { target: { value } });
  fireEvent.submit(screen.getByTestId("discount-form"));
}

beforeEach(() => {
  resetApiConfig();
  appStore.set(initialAppState());
  window.history.replaceState(null, "", "/");
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe("helpers", () => {
  it("prices like the server: rounded discount, price per credit rounded up", () => {
    expect(discounted(2595, 25)).toBe(1946);
    expect(discounted(1295, 25)).toBe(971);
    expect(discounted(2595, 0)).toBe(2595);
    expect(perCredit(2595, 50)).toBe(52);
    expect(formatMoney(1946, "GBP", "en")).toBe("£19.46");
    expect(formatMoney(1946, "EUR", "not a locale!")).toBe("€19.46");
    expect(fill("Pay {price} {x}", { price: "£1.00" })).toBe("Pay £1.00 {x}");
  });

  it("polls every 2 s at first, backing off to 10 s", () => {
    expect([0, 1, 2, 3, 4, 5, 20].map(pollDelay)).toEqual([2000, 3000, 4500, 6750, 10000, 10000, 10000]);
  });

  it("reads payments from the API, refusing broken ones", () => {
    expect(parsePayment({ payment: payment() })?.id).toBe("pay123");
    expect(parsePayment(payment({ status: "completed" }))?.status).toBe("completed");
    expect(parsePayment({ payment: { id: "x", status: "weird" } })).toBeNull();
    expect(parsePayment(null)).toBeNull();
  });
});

describe("packages (/credits)", () => {
  it("shows each package, the highlighted one marked, with the price per credit and Buy", () => {
    render(<Checkout {...packagesProps()} />);
    expect(prices()).toEqual(["£12.95", "£25.95", "£51.95"]);
    expect(screen.queryAllByTestId("package-list-price")).toHaveLength(0);
    const highlighted = screen.getByTestId("package-2");
    expect(highlighted.dataset.highlighted).toBe("true");
    expect(highlighted.className).toContain("package-card-highlighted");
    expect(within(highlighted).getByText("Most popular")).toBeTruthy();
    expect(screen.getByTestId("package-1").dataset.highlighted).toBeUndefined();
    expect(within(highlighted).getByTestId("package-per-credit").textContent).toBe("£0.52 per credit");
    expect(screen.getByTestId("package-buy-3").getAttribute("href")).toBe("/credits/3");
    expect(screen.queryByTestId("credits-discount")).toBeNull();
  });

  it("strikes through the list price under the time bonus", () => {
    const props = packagesProps({
      discount: timeBonus,
      packages: [pkg(1, 20, 1295, 971), pkg(2, 50, 2595, 1946, true), pkg(3, 120, 5195, 3896)],
    });
    render(<Checkout {...props} />);
    expect(prices()).toEqual(["£9.71", "£19.46", "£38.96"]);
    expect(screen.getAllByTestId("package-list-price").map((el) => el.textContent)).toEqual([
      "Was £12.95",
      "Was £25.95",
      "Was £51.95",
    ]);
    expect(screen.getByTestId("credits-discount").textContent).toContain("Time bonus: 25% off with code TIMEBONUS25");
    // The automatic discount needs no code in the Buy link.
    expect(screen.getByTestId("package-buy-2").getAttribute("href")).toBe("/credits/2");
  });

  it("drops an expired time bonus from the prices", async () => {
    vi.useFakeTimers();
    const props = packagesProps({
      discount: { ...timeBonus, expires: new Date(Date.now() + 5_000).toISOString() },
      packages: [pkg(2, 50, 2595, 1946, true)],
    });
    render(<Checkout {...props} />);
    expect(prices()).toEqual(["£19.46"]);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5_001);
    });
    expect(prices()).toEqual(["£25.95"]);
    expect(screen.queryByTestId("credits-discount")).toBeNull();
  });

  it("a valid code re-prices every package and goes with the Buy links", async () => {
    const calls = fakeApi(() =>
      json(200, { discount_code: { code: "SPRING10", percentage: 10, kind: "code", expires: null } }),
    );
    render(<Checkout {...packagesProps()} />);
    typeCode(" spring10 ");
    await waitFor(() => expect(prices()).toEqual(["£11.65", "£23.35", "£46.75"]));
    expect(calls).toHaveLength(1);
    expect(calls[0].path).toBe("/api/discountcode.php");
    expect(calls[0].params).toEqual({ code: "SPRING10" });
    expect(screen.getByTestId("discount-applied").textContent).toContain("Code SPRING10 applied: 10% off.");
    expect(screen.getByTestId("package-buy-2").getAttribute("href")).toBe("/credits/2?code=SPRING10");
    fireEvent.click(screen.getByTestId("discount-remove"));
    expect(prices()).toEqual(["£12.95", "£25.95", "£51.95"]);
    expect((screen.getByTestId("discount-input") as HTMLInputElement).value).toBe("");
  });

  it.each([
    [404, "code_not_found", "Code not found"],
    [409, "code_used", "Code already used"],
    [400, "order_too_small", "This code is valid for orders of 50.00 EUR or more."],
  ])("shows the %s error under the field and keeps what was typed", async (status, code, message) => {
    fakeApi(() => error(status, code, message, { code: [message] }));
    render(<Checkout {...packagesProps({ discount: timeBonus, packages: [pkg(2, 50, 2595, 1946, true)] })} />);
    typeCode("wrong-1");
    const shown = await screen.findByTestId("discount-error");
    expect(shown.textContent).toBe(message);
    const input = screen.getByTestId("discount-input") as HTMLInputElement;
    expect(input.value).toBe("wrong-1");
    expect(input.className).toContain("is-invalid");
    expect(input.getAttribute("aria-describedby")).toBe(shown.id);
    // The time bonus still applies.
    expect(prices()).toEqual(["£19.46"]);
    // Typing again clears the message.
    fireEvent.change(input, { target: { value: "wrong-12" } });
    expect(screen.queryByTestId("discount-error")).toBeNull();
  });

  it("asks for a code before checking an empty field", () => {
    const calls = fakeApi(() => json(200, {}));
    render(<Checkout {...packagesProps()} />);
    typeCode("   ");
    expect(screen.getByTestId("discount-error").textContent).toBe("Enter a discount code.");
    expect(calls).toHaveLength(0);
  });

  it("shows a code from the address with its server-side result", () => {
    render(<Checkout {...packagesProps({ code: "NOPE", codeError: "Code not found" })} />);
    expect((screen.getByTestId("discount-input") as HTMLInputElement).value).toBe("NOPE");
    expect(screen.getByTestId("discount-error").textContent).toBe("Code not found");
  });

  it("a frozen member gets no Buy buttons and no code field", () => {
    render(<Checkout {...packagesProps({ frozen: true })} />);
    expect(prices()).toHaveLength(3);
    expect(screen.queryByTestId("package-buy-2")).toBeNull();
    expect(screen.queryByTestId("discount-form")).toBeNull();
  });
});

describe("checkout (/credits/<id>/<method>)", () => {
  it("lists the methods, marks the one of the address, and direct debit links to the SMS page", () => {
    render(<Checkout {...checkoutProps({ method: "paypal" })} />);
    const list = screen.getByTestId("payment-methods");
    expect(within(list).getAllByRole("radio").map((el) => (el as HTMLInputElement).value)).toEqual(["visa", "paypal"]);
    expect(screen.getByTestId("method-paypal").dataset.chosen).toBe("true");
    expect((within(screen.getByTestId("method-paypal")).getByRole("radio") as HTMLInputElement).checked).toBe(true);
    expect(screen.getByTestId("method-visa").dataset.chosen).toBeUndefined();
    expect(screen.getByTestId("method-directdebit").getAttribute("href")).toBe("/directdebit?package=2");
    expect(screen.getByTestId("checkout-pay").textContent).toBe("Pay £25.95");
    expect(screen.getByTestId("checkout-other-package").getAttribute("href")).toBe("/credits");
  });

  it("choosing a method puts it in the address", () => {
    window.history.replaceState(null, "", "/credits/2");
    render(<Checkout {...checkoutProps()} />);
    fireEvent.click(within(screen.getByTestId("method-visa")).getByRole("radio"));
    expect(window.location.pathname).toBe("/credits/2/visa");
    expect(screen.getByTestId("method-visa").dataset.chosen).toBe("true");
  });

  it("Pay without a method asks for one", () => {
    const calls = fakeApi(() => json(201, {}));
    render(<Checkout {...checkoutProps()} />);
    fireEvent.click(screen.getByTestId("checkout-pay"));
    expect(screen.getByTestId("method-error").textContent).toBe("Choose how to pay");
    expect(calls).toHaveLength(0);
  });

  it("Pay starts the payment with the discount and goes to the checkout", async () => {
    const assign = vi.spyOn(navigation, "assign").mockImplementation(() => {});
    const calls = fakeApi(() =>
      json(201, { payment: payment(), checkout_url: "http://localhost/sandbox/checkout/tr_sbx_1" }),
    );
    render(<Checkout {...checkoutProps({ method: "visa", discount: timeBonus, package: pkg(2, 50, 2595, 1946) })} />);
    expect(screen.getByTestId("checkout-list-price").textContent).toBe("£25.95");
    expect(screen.getByTestId("checkout-price").textContent).toBe("£19.46");
    expect(screen.getByTestId("checkout-discount").textContent).toContain("TIMEBONUS25");
    fireEvent.click(screen.getByTestId("checkout-pay"));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("http://localhost/sandbox/checkout/tr_sbx_1"));
    expect(calls).toEqual([
      expect.objectContaining({
        method: "POST",
        path: "/api/payment.php",
        body: { package: 2, method: "visa", discount_code: "" },
      }),
    ]);
    expect(screen.getByTestId("checkout-pay").textContent).toBe("One moment…");
    expect((screen.getByTestId("checkout-pay") as HTMLButtonElement).disabled).toBe(true);
  });

  it("a code typed but not applied is checked first, then paid with", async () => {
    const assign = vi.spyOn(navigation, "assign").mockImplementation(() => {});
    const calls = fakeApi((call) =>
      call.path === "/api/discountcode.php"
        ? json(200, { discount_code: { code: "SPRING10", percentage: 10, kind: "code", expires: null } })
        : json(201, { payment: payment(), checkout_url: "/sandbox/checkout/tr_sbx_2" }),
    );
    render(<Checkout {...checkoutProps({ method: "paypal" })} />);
    fireEvent.change(screen.getByTestId("discount-input"), { target: { value: "spring10" } });
    fireEvent.click(screen.getByTestId("checkout-pay"));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("/sandbox/checkout/tr_sbx_2"));
    expect(calls.map((c) => c.path)).toEqual(["/api/discountcode.php", "/api/payment.php"]);
    expect(calls[0].params).toEqual({ code: "SPRING10", package: "2" });
    expect(calls[1].body).toEqual({ package: 2, method: "paypal", discount_code: "SPRING10" });
  });

  it("a refused code stops the payment, with the message under the field", async () => {
    const calls = fakeApi(() => error(409, "code_used", "Code already used", { code: ["Code already used"] }));
    render(<Checkout {...checkoutProps({ method: "visa" })} />);
    fireEvent.change(screen.getByTestId("discount-input"), { target: { value: "OLD" } });
    fireEvent.click(screen.getByTestId("checkout-pay"));
    expect((await screen.findByTestId("discount-error")).textContent).toBe("Code already used");
    expect(calls.map((c) => c.path)).toEqual(["/api/discountcode.php"]);
    expect((screen.getByTestId("discount-input") as HTMLInputElement).value).toBe("OLD");
  });

  it("shows the service's errors and lets the member try again", async () => {
    fakeApi(() => error(503, "gateway_unavailable", "An error occured, please try again later."));
    configureApi({ retries: 0 });
    render(<Checkout {...checkoutProps({ method: "visa" })} />);
    fireEvent.click(screen.getByTestId("checkout-pay"));
    expect((await screen.findByTestId("checkout-error")).textContent).toBe("An error occured, please try again later.");
    expect((screen.getByTestId("checkout-pay") as HTMLButtonElement).disabled).toBe(false);
  });

  it("a frozen member sees why and cannot pay", () => {
    render(<Checkout {...checkoutProps({ frozen: true })} />);
    expect(screen.getByTestId("checkout-frozen").textContent).toBe(strings.frozen);
    expect(screen.queryByTestId("checkout-pay")).toBeNull();
  });
});

describe("the payment's state after the gateway", () => {
  async function advance(ms: number) {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ms);
    });
  }

  it("loading, then pending, then completed: polling with backoff, toast and store", async () => {
    vi.useFakeTimers();
    appStore.set({
      user: { id: 7, credits: 10, paid_user: false },
      timeBonus: { code: "TIMEBONUS25", expiresAt: Date.now() + 60_000, isVisible: false },
    });
    const answers = [
      payment({ status: "loading" }),
      payment({ status: "pending" }),
      payment({ status: "pending" }),
      payment({ status: "completed", balance: 60, paid_user: true }),
    ];
    const start = Date.now();
    const calls = fakeApi(() => json(200, { payment: answers.shift() ?? answers[0] }));
    render(<Checkout {...checkoutProps({ payment: payment(), method: "visa" })} />);
    expect(screen.getByTestId("payment-loading").textContent).toContain("Loading your payment…");

    await advance(0); // the first look at once: still loading
    expect(calls).toHaveLength(1);
    await advance(2_000); // then 2 s: pending
    expect(calls).toHaveLength(2);
    expect(screen.getByTestId("payment-pending").textContent).toContain("Processing your payment");
    await advance(2_999);
    expect(calls).toHaveLength(2);
    await advance(1); // 3 s later
    expect(calls).toHaveLength(3);
    await advance(4_500); // 4.5 s later: completed
    expect(calls).toHaveLength(4);
    expect(calls.map((c) => c.at - start)).toEqual([0, 2_000, 5_000, 9_500]);
    expect(calls.every((c) => c.path === "/api/payment.php" && c.params.id === "pay123")).toBe(true);

    const done = screen.getByTestId("payment-completed");
    expect(done.textContent).toContain("Payment completed");
    expect(screen.getByTestId("payment-credits-added").textContent).toBe("50 credits added");
    expect(screen.getByTestId("payment-balance").textContent).toBe("You now have 60 credits.");
    expect(screen.getByTestId("payment-premium").textContent).toContain("You are now a premium member.");
    expect(screen.getByTestId("credits-toast").textContent).toContain("50 credits added");
    expect(appStore.get().user).toEqual({ id: 7, credits: 60, paid_user: true });
    expect(appStore.get().timeBonus).toBeNull();

    // No more polling once final; the toast goes after a while.
    await advance(60_000);
    expect(calls).toHaveLength(4);
    expect(screen.queryByTestId("credits-toast")).toBeNull();
    expect(screen.getByTestId("payment-completed")).toBeTruthy();
  });

  it("gives up after a few minutes, and Check again polls anew", async () => {
    vi.useFakeTimers();
    const calls = fakeApi(() => json(200, { payment: payment({ status: "pending" }) }));
    render(<Checkout {...checkoutProps({ payment: payment({ status: "pending" }) })} />);
    await advance(POLL_LIMIT_MS + 20_000);
    expect(screen.getByTestId("payment-slow").textContent).toBe(strings.slow);
    const count = calls.length;
    expect(count).toBeGreaterThan(15);
    expect(count).toBeLessThan(30);
    await advance(60_000);
    expect(calls).toHaveLength(count);
    fireEvent.click(screen.getByTestId("payment-check-again"));
    await advance(0);
    expect(calls).toHaveLength(count + 1);
    expect(screen.getByTestId("payment-pending")).toBeTruthy();
  });

  it("keeps polling through network errors", async () => {
    vi.useFakeTimers();
    let n = 0;
    const calls = fakeApi(() => {
      n += 1;
      if (n < 3) throw new TypeError("network down");
      return json(200, { payment: payment({ status: "completed", balance: 60, paid_user: true }) });
    });
    render(<Checkout {...checkoutProps({ payment: payment() })} />);
    await advance(0);
    await advance(2_000);
    await advance(3_000);
    expect(calls).toHaveLength(3);
    expect(screen.getByTestId("payment-completed")).toBeTruthy();
  });

  it("a completed payment shown at once updates the store once", () => {
    appStore.set({ user: { id: 7, credits: 0, paid_user: false } });
    const calls = fakeApi(() => json(200, {}));
    render(<Checkout {...checkoutProps({ payment: payment({ status: "completed", balance: 50, paid_user: true }) })} />);
    expect(screen.getByTestId("credits-toast")).toBeTruthy();
    expect(appStore.get().user).toEqual({ id: 7, credits: 50, paid_user: true });
    expect(calls).toHaveLength(0);
  });

  it("failed: the message, retry with the same method, or another method", async () => {
    const assign = vi.spyOn(navigation, "assign").mockImplementation(() => {});
    const calls = fakeApi(() => json(201, { payment: payment({ id: "pay2" }), checkout_url: "/sandbox/checkout/x" }));
    render(<Checkout {...checkoutProps({ payment: payment({ status: "failed" }), method: "visa" })} />);
    expect(screen.getByTestId("payment-failed-message").textContent).toBe("Payment failed or has been cancelled.");
    expect(screen.getByText("Or choose another way to pay")).toBeTruthy();
    // The failed method has its own button; the list offers the others.
    const list = screen.getByTestId("payment-methods");
    expect(within(list).getAllByRole("radio").map((el) => (el as HTMLInputElement).value)).toEqual(["paypal"]);
    fireEvent.click(screen.getByTestId("payment-retry"));
    expect(screen.getByTestId("payment-retry").textContent).toBe("Try again with Visa");
    await waitFor(() => expect(assign).toHaveBeenCalledTimes(1));
    expect(calls[0].body).toEqual({ package: 2, method: "visa", discount_code: "" });
    // Leaving for the checkout: nothing can be pressed twice meanwhile.
    expect((screen.getByTestId("payment-retry") as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId("checkout-pay") as HTMLButtonElement).disabled).toBe(true);
  });

  it("failed: another method pays with that method", async () => {
    const assign = vi.spyOn(navigation, "assign").mockImplementation(() => {});
    const calls = fakeApi(() => json(201, { payment: payment({ id: "pay2" }), checkout_url: "/sandbox/checkout/y" }));
    render(<Checkout {...checkoutProps({ payment: payment({ status: "failed" }), method: "visa" })} />);
    fireEvent.click(within(screen.getByTestId("payment-methods")).getByRole("radio"));
    fireEvent.click(screen.getByTestId("checkout-pay"));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("/sandbox/checkout/y"));
    expect(calls[0].body).toEqual({ package: 2, method: "paypal", discount_code: "" });
  });

  it("a failed repeat order offers Try again (the stored method) and PayPal", () => {
    const meta = document.createElement("meta");
    meta.name = "csrf-token";
    meta.content = "tok3n";
    document.head.append(meta);
    try {
      render(<Checkout {...checkoutProps({ payment: payment({ status: "failed" }), recurring: true })} />);
      const retry = screen.getByTestId("payment-retry");
      const form = retry.closest("form")!;
      expect(form.getAttribute("method")).toBe("post");
      expect(form.getAttribute("action")).toBe("/credits/repeat-order");
      expect((form.elements.namedItem("csrfmiddlewaretoken") as HTMLInputElement).value).toBe("tok3n");
      expect((form.elements.namedItem("package") as HTMLInputElement).value).toBe("2");
      expect(retry.textContent).toBe("Try again");
      expect(screen.getByTestId("payment-paypal").getAttribute("href")).toBe("/credits/2/paypal");
      expect(screen.queryByTestId("payment-methods")).toBeNull();
    } finally {
      meta.remove();
    }
  });
});
