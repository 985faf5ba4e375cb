import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import showPushNotice, { shouldShowPushNotice } from "../pushNotice";
import type { PushLastMessage } from "../store";

const ORIGIN = window.location.origin;
const PUSH = {
  id: "n-81",
  kind: "new_messages",
  title: "New message",
  body: "Bella: hi",
  url: `${ORIGIN}/chats/12`,
  checkUrl: `${ORIGIN}/chats/12`,
};

function looking(visible = true, focused = true) {
  vi.spyOn(document, "visibilityState", "get").mockReturnValue(visible ? "visible" : "hidden");
  vi.spyOn(document, "hasFocus").mockReturnValue(focused);
}

beforeEach(() => {
  document.body.innerHTML =
    '<a href="#main">Skip</a><div class="push-notices" role="status" aria-live="polite" aria-label="Mitteilungen"' +
    ' data-push-notices data-open-text="Öffnen" data-close-text="Schließen"></div>' +
    '<main id="main" tabindex="-1"><button id="elsewhere">x</button></main>';
  history.replaceState(null, "", "/likes");
  looking();
});

afterEach(() => {
  document.body.innerHTML = "";
  history.replaceState(null, "", "/");
});

const region = () => document.querySelector<HTMLElement>("[data-push-notices]")!;
const previous = (id: string): PushLastMessage => ({ id, kind: "new_messages", at: 1 });
/** The worker's message and the app state before it was remembered, as lib/push.ts passes them. */
const show = (payload: unknown, last: PushLastMessage | null = null) =>
  showPushNotice({ payload }, { push: { lastMessage: last } }, window);

describe("whether the page shows a push", () => {
  it("shows it when the page is visible and focused and is not the push's page", () => {
    expect(shouldShowPushNotice(PUSH, null, window)).toBe(true);
    expect(shouldShowPushNotice(PUSH, previous("n-80"), window)).toBe(true);
  });

  it("not in a hidden or unfocused page", () => {
    looking(false, true);
    expect(shouldShowPushNotice(PUSH, null, window)).toBe(false);
    looking(true, false);
    expect(shouldShowPushNotice(PUSH, null, window)).toBe(false);
  });

  it("not again: the same id as the last message remembered (redelivered, or after a reload)", () => {
    expect(shouldShowPushNotice(PUSH, previous("n-81"), window)).toBe(false);
    expect(shouldShowPushNotice({ ...PUSH, id: 81 }, previous("81"), window)).toBe(false);
  });

  it("a push without id is shown (nothing to compare)", () => {
    expect(shouldShowPushNotice({ ...PUSH, id: "" }, previous(""), window)).toBe(true);
    expect(shouldShowPushNotice({ ...PUSH, id: undefined }, previous(""), window)).toBe(true);
  });

  it("not on the push's own page (path and query; the hash does not count)", () => {
    history.replaceState(null, "", "/chats/12#end");
    expect(shouldShowPushNotice(PUSH, null, window)).toBe(false);
    expect(shouldShowPushNotice({ ...PUSH, url: `${ORIGIN}/chats` }, null, window)).toBe(false);
    history.replaceState(null, "", "/chats/12?tab=2");
    expect(shouldShowPushNotice(PUSH, null, window)).toBe(true);
  });

  it("needs a title", () => {
    expect(shouldShowPushNotice({ ...PUSH, title: "" }, null, window)).toBe(false);
    expect(shouldShowPushNotice(null, null, window)).toBe(false);
  });
});

describe("the in-page notice", () => {
  it("shows title, body, an Open link to its page and a Close button, with the server's strings", () => {
    const notice = show(PUSH, null)!;
    expect(region().children).toHaveLength(1);
    expect(notice.querySelector(".push-notice-title")!.textContent).toBe("New message");
    expect(notice.querySelector(".push-notice-body")!.textContent).toBe("Bella: hi");
    const open = notice.querySelector<HTMLAnchorElement>("a")!;
    expect(open.textContent).toBe("Öffnen");
    expect(open.href).toBe(`${ORIGIN}/chats/12`);
    expect(open.getAttribute("aria-describedby")).toBe("push-notice-title");
    const close = notice.querySelector<HTMLButtonElement>("button")!;
    expect(close.type).toBe("button");
    expect(close.getAttribute("aria-label")).toBe("Schließen");
    // Never takes the focus, and no inline style (CSP).
    expect(document.activeElement).toBe(document.body);
    expect(notice.outerHTML).not.toContain("style=");
  });

  it("text stays text (no markup from the payload)", () => {
    const notice = show({ ...PUSH, title: "<img src=x onerror=alert(1)>", body: "<b>x</b>" }, null)!;
    expect(notice.querySelector("img, b")).toBeNull();
    expect(notice.querySelector(".push-notice-title")!.textContent).toBe("<img src=x onerror=alert(1)>");
  });

  it("a foreign url gets no link", () => {
    const notice = show({ ...PUSH, url: "https://evil.example/", checkUrl: undefined }, null)!;
    expect(notice.querySelector("a")).toBeNull();
  });

  it("shows nothing when it should not, or without the region", () => {
    expect(show(PUSH, previous("n-81"))).toBeNull();
    region().remove();
    expect(show(PUSH, null)).toBeNull();
  });

  it("Close and Escape remove it; the focus, when in it, goes to the main content", () => {
    let notice = show(PUSH, null)!;
    notice.querySelector<HTMLButtonElement>("button")!.click();
    expect(region().children).toHaveLength(0);

    notice = show({ ...PUSH, id: "n-82" }, null)!;
    const close = notice.querySelector<HTMLButtonElement>("button")!;
    close.focus();
    close.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(region().children).toHaveLength(0);
    expect(document.activeElement).toBe(document.getElementById("main"));

    // Closing while the focus is elsewhere leaves it there.
    notice = show({ ...PUSH, id: "n-83" }, null)!;
    document.getElementById("elsewhere")!.focus();
    notice.querySelector<HTMLButtonElement>("button")!.click();
    expect(document.activeElement).toBe(document.getElementById("elsewhere"));
  });

  it("one at a time: a newer push replaces it, and the focus follows to the newer one", () => {
    const first = show(PUSH, null)!;
    first.querySelector<HTMLButtonElement>("button")!.focus();
    const second = show({ ...PUSH, id: "n-82", title: "Another" }, previous("n-81"))!;
    expect(region().children).toHaveLength(1);
    expect(region().textContent).toContain("Another");
    expect(document.activeElement).toBe(second.querySelector("button"));
  });
});
