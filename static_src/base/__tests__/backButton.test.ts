import { afterEach, describe, expect, it, vi } from "vitest";

import { isStandalone } from "../../lib/standalone";
import { BACK_BUTTON_ROUTES, backButtonVisible, installBackButton } from "../backButton";

afterEach(() => {
  document.body.innerHTML = "";
  delete document.body.dataset.route;
  delete (navigator as { standalone?: unknown }).standalone;
});

/** A window whose display mode and history length the test chooses. */
function fakeWindow({ standalone, historyLength }: { standalone: boolean; historyLength: number }) {
  const listeners: Record<string, (() => void)[]> = {};
  const media = {
    matches: standalone,
    addEventListener: vi.fn((type: string, fn: () => void) => (listeners[`media:${type}`] ??= []).push(fn)),
    removeEventListener: vi.fn(),
  };
  const win = {
    navigator: {},
    history: { length: historyLength, back: vi.fn() },
    matchMedia: vi.fn((query: string) => ({ ...media, matches: query === "(display-mode: standalone)" && media.matches })),
    addEventListener: vi.fn((type: string, fn: () => void) => (listeners[type] ??= []).push(fn)),
    removeEventListener: vi.fn(),
  };
  const fire = (type: string) => (listeners[type] ?? []).forEach((fn) => fn());
  return { win: win as unknown as Window & typeof win, media, fire };
}

function page(route: string) {
  document.body.dataset.route = route;
  document.body.innerHTML = '<button type="button" data-back-button aria-label="Back" hidden>Back</button>';
  return document.querySelector<HTMLButtonElement>("[data-back-button]")!;
}

describe("backButtonVisible", () => {
  it("only in standalone mode, with history, on the routes of spec §2", () => {
    for (const route of ["members-id", "likes-type", "likes-m-id", "credits", "credits-id-paymentmethod"]) {
      expect(backButtonVisible({ route, historyLength: 2, standalone: true })).toBe(true);
    }
    expect([...BACK_BUTTON_ROUTES].sort()).toEqual(
      ["credits", "credits-id-paymentmethod", "likes-m-id", "likes-type", "members-id"].sort(),
    );
    for (const route of ["members", "index", "chats", "chats-id", "likes", "premium", ""]) {
      expect(backButtonVisible({ route, historyLength: 5, standalone: true })).toBe(false);
    }
    expect(backButtonVisible({ route: "members-id", historyLength: 1, standalone: true })).toBe(false);
    expect(backButtonVisible({ route: "members-id", historyLength: 5, standalone: false })).toBe(false);
  });
});

describe("installBackButton", () => {
  it("shows the button in the installed app on a listed route, and goes back on click", () => {
    const button = page("members-id");
    const { win } = fakeWindow({ standalone: true, historyLength: 3 });
    installBackButton(document, win);
    expect(button.hidden).toBe(false);
    button.click();
    expect(win.history.back).toHaveBeenCalledTimes(1);
  });

  it("keeps it hidden in a browser tab, on the first page, and on other routes", () => {
    let button = page("members-id");
    installBackButton(document, fakeWindow({ standalone: false, historyLength: 3 }).win);
    expect(button.hidden).toBe(true);
    button = page("members-id");
    installBackButton(document, fakeWindow({ standalone: true, historyLength: 1 }).win);
    expect(button.hidden).toBe(true);
    button = page("members");
    installBackButton(document, fakeWindow({ standalone: true, historyLength: 3 }).win);
    expect(button.hidden).toBe(true);
  });

  it("follows the display mode and pages restored from the back-forward cache", () => {
    const button = page("credits");
    const { win, media, fire } = fakeWindow({ standalone: false, historyLength: 2 });
    installBackButton(document, win);
    expect(button.hidden).toBe(true);
    media.matches = true;
    fire("media:change");
    expect(button.hidden).toBe(false);
    win.history.length = 1;
    fire("pageshow");
    expect(button.hidden).toBe(true);
  });

  it("does nothing without the button", () => {
    document.body.innerHTML = "";
    expect(() => installBackButton(document, fakeWindow({ standalone: true, historyLength: 3 }).win)()).not.toThrow();
  });
});

describe("isStandalone", () => {
  it("is the display-mode media query or iOS navigator.standalone", () => {
    expect(isStandalone(fakeWindow({ standalone: true, historyLength: 1 }).win)).toBe(true);
    expect(isStandalone(fakeWindow({ standalone: false, historyLength: 1 }).win)).toBe(false);
    const ios = { navigator: { standalone: true } } as unknown as Window;
    expect(isStandalone(ios)).toBe(true);
    const broken = { matchMedia: () => { throw new Error("no"); }, navigator: {} } as unknown as Window;
    expect(isStandalone(broken)).toBe(false);
  });
});
