import { afterEach, describe, expect, it } from "vitest";

import { creditsBadge, renderCredits } from "../badges";

const FREE = `
  <a class="nav-link" data-topbar-credits data-label-credits="Credits" data-paid-href="/credits/repeat-order"
     href="/premium" data-testid="topbar-credits"><span>Get Premium</span>
    <span class="badge rounded-pill text-bg-danger" data-badge="credits" data-testid="badge-credits" title="Credits">0</span></a>`;

const link = () => document.querySelector<HTMLAnchorElement>("[data-topbar-credits]")!;
const badge = () => document.querySelector<HTMLElement>('[data-badge="credits"]');

afterEach(() => {
  document.body.innerHTML = "";
});

describe("creditsBadge", () => {
  it("shows 10 or fewer credits, warning above 0 and danger at 0", () => {
    expect(creditsBadge(11)).toBeNull();
    expect(creditsBadge(10)).toEqual({ label: "10", style: "warning" });
    expect(creditsBadge(1)).toEqual({ label: "1", style: "warning" });
    expect(creditsBadge(0)).toEqual({ label: "0", style: "danger" });
  });
});

describe("renderCredits", () => {
  it("turns Get Premium into Credits after the first purchase and drops the badge above 10", () => {
    document.body.innerHTML = FREE;
    renderCredits({ credits: 50, paid_user: true });
    expect(link().getAttribute("href")).toBe("/credits/repeat-order");
    expect(link().textContent?.trim()).toBe("Credits");
    expect(badge()).toBeNull();
  });

  it("updates the badge, and adds it when the balance drops to 10", () => {
    document.body.innerHTML = FREE;
    renderCredits({ credits: 3, paid_user: false });
    expect(link().getAttribute("href")).toBe("/premium");
    expect(badge()!.textContent).toBe("3");
    expect(badge()!.className).toBe("badge rounded-pill text-bg-warning");
    renderCredits({ credits: 40, paid_user: true });
    expect(badge()).toBeNull();
    renderCredits({ credits: 0, paid_user: true });
    expect(badge()!.textContent).toBe("0");
    expect(badge()!.className).toContain("text-bg-danger");
    expect(badge()!.dataset.testid).toBe("badge-credits");
    expect(badge()!.title).toBe("Credits");
  });

  it("keeps the phones' bottom bar link in step too, with its own badge test id and class", () => {
    const BOTTOM = `
      <a class="bottom-nav-link" data-topbar-credits data-label-credits="Credits" data-paid-href="/credits/repeat-order"
         data-badge-testid="bottom-badge-credits" data-badge-class="badge rounded-pill bottom-nav-badge"
         href="/premium" data-testid="bottom-nav-credits"><svg></svg><span class="bottom-nav-label">Premium</span></a>`;
    document.body.innerHTML = FREE + BOTTOM;
    const bottom = () => document.querySelector<HTMLAnchorElement>('[data-testid="bottom-nav-credits"]')!;
    renderCredits({ credits: 2, paid_user: false });
    const added = bottom().querySelector<HTMLElement>('[data-badge="credits"]')!;
    expect(added.dataset.testid).toBe("bottom-badge-credits");
    expect(added.className).toBe("badge rounded-pill bottom-nav-badge text-bg-warning");
    expect(added.textContent).toBe("2");
    expect(badge()!.textContent).toBe("2");
    renderCredits({ credits: 0, paid_user: true });
    expect(bottom().getAttribute("href")).toBe("/credits/repeat-order");
    expect(bottom().querySelector(".bottom-nav-label")!.textContent).toBe("Credits");
    expect(added.className).toContain("text-bg-danger");
  });

  it("does nothing without the link or a member", () => {
    expect(() => renderCredits({ credits: 1, paid_user: true })).not.toThrow();
    document.body.innerHTML = FREE;
    renderCredits(null);
    expect(link().textContent).toContain("Get Premium");
    expect(badge()!.textContent).toBe("0");
  });
});
