import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { installProgressBar, PROGRESS_BAR_ID, type ProgressBar } from "../progress";

let bar: ProgressBar;
const preventNavigation = (e: Event) => e.preventDefault();

function link(attrs: Record<string, string>): HTMLAnchorElement {
  const a = document.createElement("a");
  for (const [k, v] of Object.entries(attrs)) a.setAttribute(k, v);
  a.textContent = "go";
  document.body.appendChild(a);
  return a;
}

function click(el: Element, init: MouseEventInit = {}) {
  el.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, button: 0, ...init }));
}

function barEl(): HTMLElement | null {
  return document.getElementById(PROGRESS_BAR_ID);
}

function visible(): boolean {
  const el = barEl();
  return !!el && !el.hidden;
}

beforeEach(() => {
  vi.useFakeTimers();
  // jsdom cannot navigate: cancel the default action after our document listener ran.
  window.addEventListener("click", preventNavigation);
  window.addEventListener("submit", preventNavigation);
  bar = installProgressBar();
});

afterEach(() => {
  bar.uninstall();
  window.removeEventListener("click", preventNavigation);
  window.removeEventListener("submit", preventNavigation);
  delete (window as { matchMedia?: unknown }).matchMedia;
  document.body.innerHTML = "";
  vi.useRealTimers();
});

describe("progress bar", () => {
  it("appears 200 ms after a same-origin link click and grows towards 90% over 5 s", () => {
    click(link({ href: "/members" }));
    vi.advanceTimersByTime(199);
    expect(visible()).toBe(false);
    vi.advanceTimersByTime(1);
    expect(visible()).toBe(true);
    const el = barEl()!;
    expect(el.className).toContain("progress-bar-top");
    expect(el.style.width).toBe("90%");
    expect(el.style.transition).toContain("5000ms");
  });

  it("ignores modifier clicks, new tabs, downloads, other origins and same-page hashes", () => {
    click(link({ href: "/members" }), { ctrlKey: true });
    click(link({ href: "/members" }), { metaKey: true });
    click(link({ href: "/members" }), { button: 1 });
    click(link({ href: "/members", target: "_blank" }));
    click(link({ href: "/files/a.pdf", download: "" }));
    click(link({ href: "https://elsewhere.example.com/" }));
    click(link({ href: "#top" }));
    click(link({ href: "mailto:help@example.com" }));
    vi.advanceTimersByTime(1000);
    expect(visible()).toBe(false);
  });

  it("ignores clicks an island already handled (defaultPrevented)", () => {
    const a = link({ href: "/chats/1" });
    a.addEventListener("click", (e) => e.preventDefault());
    click(a);
    vi.advanceTimersByTime(1000);
    expect(visible()).toBe(false);
  });

  it("appears on form submit", () => {
    const form = document.createElement("form");
    form.action = "/login";
    document.body.appendChild(form);
    form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    vi.advanceTimersByTime(200);
    expect(visible()).toBe(true);
  });

  it("is hidden again on pageshow (bfcache)", () => {
    click(link({ href: "/likes" }));
    vi.advanceTimersByTime(300);
    expect(visible()).toBe(true);
    window.dispatchEvent(new Event("pageshow"));
    expect(visible()).toBe(false);
  });

  it("does not animate with prefers-reduced-motion", () => {
    Object.defineProperty(window, "matchMedia", {
      configurable: true,
      writable: true,
      value: (query: string) => ({ matches: query.includes("prefers-reduced-motion"), media: query }),
    });
    click(link({ href: "/likes" }));
    vi.advanceTimersByTime(200);
    expect(visible()).toBe(true);
    expect(barEl()!.style.transition).toBe("none");
    expect(barEl()!.style.width).toBe("90%");
  });
});
