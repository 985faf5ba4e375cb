import { describe, expect, it, vi } from "vitest";

import {
  handleNotificationClick,
  handlePush,
  installServiceWorker,
  parsePush,
  PUSH_CLICK,
  PUSH_MESSAGE,
  siteUrl,
  type SwClient,
  type SwScope,
} from "../handlers";

const ORIGIN = "https://heartline.example";

type Client = SwClient & { postMessage: ReturnType<typeof vi.fn>; focus: ReturnType<typeof vi.fn> };

function client(url: string, extra: Partial<SwClient> = {}): Client {
  return { url, postMessage: vi.fn(), focus: vi.fn(async () => undefined), ...extra } as Client;
}

function scope(clients: SwClient[] = [], badging = true) {
  const listeners: Record<string, (event: never) => void> = {};
  const navigator = badging
    ? { setAppBadge: vi.fn(async () => undefined), clearAppBadge: vi.fn(async () => undefined) }
    : {};
  const value = {
    location: { origin: ORIGIN, hostname: "heartline.example" },
    navigator,
    registration: { showNotification: vi.fn(async () => undefined) },
    clients: {
      matchAll: vi.fn(async () => clients),
      openWindow: vi.fn(async () => null),
      claim: vi.fn(async () => undefined),
    },
    skipWaiting: vi.fn(async () => undefined),
    addEventListener: vi.fn((type: string, listener: (event: never) => void) => {
      listeners[type] = listener;
    }),
  } satisfies SwScope;
  return { scope: value, listeners, navigator: navigator as { setAppBadge?: ReturnType<typeof vi.fn>; clearAppBadge?: ReturnType<typeof vi.fn> } };
}

const data = (value: unknown) => ({
  json: () => (typeof value === "string" ? JSON.parse(value) : value),
  text: () => String(value),
});

/** The contract's example notice (apps.notifications sends it). */
const NOTICE = {
  id: "n-81",
  kind: "new_messages",
  title: "New message",
  body: "Bella: hi",
  url: "/chats/12",
  checkUrl: "/chats/12",
  tag: "chat-12",
  icon: "/icons/icon-192.png?v=abc",
  badgeIcon: "/icons/badge-96.png?v=abc",
  badge: 4,
};

describe("push payload", () => {
  it("reads the whole notice and makes its addresses absolute on the site", () => {
    const { scope: s } = scope();
    expect(parsePush(s, data(NOTICE))).toEqual({
      id: "n-81",
      kind: "new_messages",
      title: "New message",
      body: "Bella: hi",
      url: `${ORIGIN}/chats/12`,
      checkUrl: `${ORIGIN}/chats/12`,
      tag: "chat-12",
      icon: `${ORIGIN}/icons/icon-192.png?v=abc`,
      badgeIcon: `${ORIGIN}/icons/badge-96.png?v=abc`,
      badge: 4,
    });
  });

  it("keeps foreign addresses off the site: the page becomes home, the others are dropped", () => {
    const { scope: s } = scope();
    const payload = parsePush(
      s,
      data({
        ...NOTICE,
        url: "https://evil.example/chats/12",
        checkUrl: "//evil.example/chats/12",
        icon: "https://evil.example/i.png",
        badgeIcon: "javascript:alert(1)",
      }),
    );
    expect(payload.url).toBe(`${ORIGIN}/`);
    expect(payload).not.toHaveProperty("checkUrl");
    expect(payload).not.toHaveProperty("icon");
    expect(payload).not.toHaveProperty("badgeIcon");
  });

  it("checks numbers and types", () => {
    const { scope: s } = scope();
    expect(parsePush(s, data({ ...NOTICE, badge: -1 }))).not.toHaveProperty("badge");
    expect(parsePush(s, data({ ...NOTICE, badge: "lots" }))).not.toHaveProperty("badge");
    expect(parsePush(s, data({ ...NOTICE, badge: Number.NaN }))).not.toHaveProperty("badge");
    expect(parsePush(s, data({ ...NOTICE, badge: 2.7 })).badge).toBe(2);
    expect(parsePush(s, data({ ...NOTICE, badge: 0 })).badge).toBe(0);
    expect(parsePush(s, data({ ...NOTICE, id: 81 })).id).toBe("81");
    expect(parsePush(s, data({ ...NOTICE, id: { x: 1 }, kind: 3, tag: 7 }))).toMatchObject({ id: "", kind: "" });
    expect(parsePush(s, data({ ...NOTICE, tag: 7 }))).not.toHaveProperty("tag");
  });

  it("survives text, arrays and nothing", () => {
    const { scope: s } = scope();
    expect(parsePush(s, data("not json {")).body).toBe("not json {");
    expect(parsePush(s, data([1, 2])).title).toBe("heartline.example");
    expect(parsePush(s, null)).toEqual({ id: "", kind: "", title: "heartline.example", body: "", url: `${ORIGIN}/` });
  });

  it("siteUrl falls back to the home page", () => {
    const { scope: s } = scope();
    expect(siteUrl(s, "javascript:alert(1)")).toBe(`${ORIGIN}/`);
    expect(siteUrl(s, 42)).toBe(`${ORIGIN}/`);
    expect(siteUrl(s, "/likes?x=1")).toBe(`${ORIGIN}/likes?x=1`);
  });
});

describe("push", () => {
  it("shows the notification with its tag (renotify), icons and click data", async () => {
    const { scope: s } = scope();
    await handlePush(s, parsePush(s, data(NOTICE)));
    expect(s.registration.showNotification).toHaveBeenCalledWith("New message", {
      body: "Bella: hi",
      tag: "chat-12",
      renotify: true,
      icon: `${ORIGIN}/icons/icon-192.png?v=abc`,
      badge: `${ORIGIN}/icons/badge-96.png?v=abc`,
      data: { url: `${ORIGIN}/chats/12`, checkUrl: `${ORIGIN}/chats/12`, id: "n-81", kind: "new_messages" },
    });
  });

  it("without a tag it does not renotify", async () => {
    const { scope: s } = scope();
    await handlePush(s, parsePush(s, data({ title: "Like", url: "/likes" })));
    const options = s.registration.showNotification.mock.calls[0]! as unknown as [string, Record<string, unknown>];
    expect(options[1]).not.toHaveProperty("tag");
    expect(options[1]).not.toHaveProperty("renotify");
  });

  it("sets the app badge to the count", async () => {
    const { scope: s, navigator } = scope();
    await handlePush(s, parsePush(s, data(NOTICE)));
    expect(navigator.setAppBadge).toHaveBeenCalledWith(4);
    expect(navigator.clearAppBadge).not.toHaveBeenCalled();
  });

  it("clears the app badge at 0 and leaves it alone without a count", async () => {
    const { scope: s, navigator } = scope();
    await handlePush(s, parsePush(s, data({ ...NOTICE, badge: 0 })));
    expect(navigator.clearAppBadge).toHaveBeenCalledTimes(1);
    expect(navigator.setAppBadge).not.toHaveBeenCalled();
    await handlePush(s, parsePush(s, data({ ...NOTICE, badge: undefined })));
    expect(navigator.clearAppBadge).toHaveBeenCalledTimes(1);
    expect(navigator.setAppBadge).not.toHaveBeenCalled();
  });

  it("works where there is no app badge, and when setting it fails", async () => {
    const page = client(`${ORIGIN}/`);
    const { scope: s } = scope([page], false);
    await handlePush(s, parsePush(s, data(NOTICE)));
    expect(page.postMessage).toHaveBeenCalledTimes(1);
    const failing = scope([page]);
    failing.navigator.setAppBadge!.mockRejectedValueOnce(new Error("not installed"));
    await expect(handlePush(failing.scope, parsePush(failing.scope, data(NOTICE)))).resolves.toBeUndefined();
    expect(page.postMessage).toHaveBeenCalledTimes(2);
  });

  it("tells every window of the site, after the notification and the badge", async () => {
    const order: string[] = [];
    const home = client(`${ORIGIN}/`);
    const chats = client(`${ORIGIN}/chats`);
    const foreign = client("https://other.example/");
    const { scope: s, navigator } = scope([home, chats, foreign]);
    s.registration.showNotification.mockImplementation(async () => void order.push("show"));
    navigator.setAppBadge!.mockImplementation(async () => void order.push("badge"));
    home.postMessage.mockImplementation(() => order.push("message"));
    const payload = parsePush(s, data(NOTICE));
    await handlePush(s, payload);
    expect(home.postMessage).toHaveBeenCalledWith({ type: PUSH_MESSAGE, payload, inPage: false });
    expect(chats.postMessage).toHaveBeenCalledWith({ type: PUSH_MESSAGE, payload, inPage: false });
    expect(foreign.postMessage).not.toHaveBeenCalled();
    expect(order).toEqual(["show", "badge", "message"]);
  });

  it("tells the windows inPage: true when showing the notification failed", async () => {
    const home = client(`${ORIGIN}/`);
    const { scope: s } = scope([home]);
    s.registration.showNotification.mockRejectedValueOnce(new TypeError("no permission"));
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const payload = parsePush(s, data(NOTICE));
    await handlePush(s, payload);
    expect(home.postMessage).toHaveBeenCalledWith({ type: PUSH_MESSAGE, payload, inPage: true });
    error.mockRestore();
  });
});

describe("push while the member looks at the site", () => {
  /** Chromium: navigator.userAgentData is there. */
  function chromium(clients: SwClient[]) {
    const made = scope(clients);
    Object.assign(made.scope.navigator, { userAgentData: { brands: [{ brand: "Chromium", version: "131" }] } });
    return made;
  }

  it("a focused, visible window of the site: no OS notification, the page shows it (inPage: true)", async () => {
    const focusedPage = client(`${ORIGIN}/likes`, { focused: true, visibilityState: "visible" });
    const background = client(`${ORIGIN}/chats`, { focused: false, visibilityState: "hidden" });
    const { scope: s, navigator } = chromium([background, focusedPage]);
    const payload = parsePush(s, data(NOTICE));
    await handlePush(s, payload);
    expect(s.registration.showNotification).not.toHaveBeenCalled();
    expect(navigator.setAppBadge).toHaveBeenCalledWith(4);
    expect(focusedPage.postMessage).toHaveBeenCalledWith({ type: PUSH_MESSAGE, payload, inPage: true });
    expect(background.postMessage).toHaveBeenCalledWith({ type: PUSH_MESSAGE, payload, inPage: true });
  });

  it("unfocused or hidden windows, or a focused window of another site: the OS notification", async () => {
    for (const clients of [
      [client(`${ORIGIN}/`, { focused: false, visibilityState: "visible" })],
      [client(`${ORIGIN}/`, { focused: true, visibilityState: "hidden" })],
      [client("https://other.example/", { focused: true, visibilityState: "visible" })],
      [],
    ]) {
      const { scope: s } = chromium(clients);
      await handlePush(s, parsePush(s, data(NOTICE)));
      expect(s.registration.showNotification).toHaveBeenCalledTimes(1);
      for (const c of clients) {
        if (c.url.startsWith(ORIGIN)) expect(c.postMessage).toHaveBeenCalledWith(expect.objectContaining({ inPage: false }));
      }
    }
  });

  it("outside Chromium (Safari revokes subscriptions whose pushes show nothing) the OS notification always shows", async () => {
    const focusedPage = client(`${ORIGIN}/likes`, { focused: true, visibilityState: "visible" });
    const { scope: s } = scope([focusedPage]);
    await handlePush(s, parsePush(s, data(NOTICE)));
    expect(s.registration.showNotification).toHaveBeenCalledTimes(1);
    expect(focusedPage.postMessage).toHaveBeenCalledWith(expect.objectContaining({ inPage: false }));
  });
});

describe("notification click", () => {
  const notification = (dataValue: Record<string, unknown>) => ({ data: dataValue, close: vi.fn() });

  it("focuses the window already at checkUrl and tells it to refresh", async () => {
    const other = client(`${ORIGIN}/`, { focused: true });
    const there = client(`${ORIGIN}/chats/12#end`);
    const { scope: s } = scope([other, there]);
    const n = notification({ url: `${ORIGIN}/chats/12`, checkUrl: `${ORIGIN}/chats/12` });
    await handleNotificationClick(s, n);
    expect(n.close).toHaveBeenCalled();
    expect(there.focus).toHaveBeenCalled();
    expect(there.postMessage).toHaveBeenCalledWith({ type: PUSH_CLICK, checkUrl: `${ORIGIN}/chats/12` });
    expect(other.postMessage).not.toHaveBeenCalled();
    expect(other.focus).not.toHaveBeenCalled();
    expect(s.clients.openWindow).not.toHaveBeenCalled();
  });

  it("compares path and query: another query is another page", async () => {
    const near = client(`${ORIGIN}/likes/received?page=2`);
    const { scope: s } = scope([near]);
    await handleNotificationClick(s, notification({ url: "/likes/received", checkUrl: "/likes/received" }));
    expect(near.postMessage).toHaveBeenCalledWith({ type: PUSH_CLICK, openUrl: `${ORIGIN}/likes/received` });
  });

  it("else tells a window of the site to open the page, the focused one first, and focuses it", async () => {
    const background = client(`${ORIGIN}/members`);
    const focused = client(`${ORIGIN}/likes`, { focused: true });
    const { scope: s } = scope([background, focused]);
    await handleNotificationClick(s, notification({ url: `${ORIGIN}/chats/12`, checkUrl: `${ORIGIN}/chats/12` }));
    expect(focused.postMessage).toHaveBeenCalledWith({ type: PUSH_CLICK, openUrl: `${ORIGIN}/chats/12` });
    expect(focused.focus).toHaveBeenCalled();
    expect(background.postMessage).not.toHaveBeenCalled();
    expect(s.clients.openWindow).not.toHaveBeenCalled();
  });

  it("still tells the window when focusing is not allowed", async () => {
    const page = client(`${ORIGIN}/members`);
    page.focus.mockRejectedValue(new Error("InvalidAccessError"));
    const { scope: s } = scope([page]);
    await handleNotificationClick(s, notification({ url: "/likes" }));
    expect(page.postMessage).toHaveBeenCalledWith({ type: PUSH_CLICK, openUrl: `${ORIGIN}/likes` });
  });

  it("else opens a new window at openUrl (windows of other sites do not count)", async () => {
    const foreign = client("https://other.example/chats/12");
    const { scope: s } = scope([foreign]);
    await handleNotificationClick(s, notification({ url: "/likes", checkUrl: "https://other.example/chats/12" }));
    expect(s.clients.openWindow).toHaveBeenCalledWith(`${ORIGIN}/likes`);
    expect(foreign.postMessage).not.toHaveBeenCalled();
  });

  it("opens the home page for a foreign url", async () => {
    const { scope: s } = scope([]);
    await handleNotificationClick(s, notification({ url: "https://evil.example/phish" }));
    expect(s.clients.openWindow).toHaveBeenCalledWith(`${ORIGIN}/`);
    const page = client(`${ORIGIN}/members`);
    const second = scope([page]);
    await handleNotificationClick(second.scope, { data: null, close: vi.fn() });
    expect(page.postMessage).toHaveBeenCalledWith({ type: PUSH_CLICK, openUrl: `${ORIGIN}/` });
  });
});

describe("installServiceWorker", () => {
  it("wires install, activate, push and notificationclick", async () => {
    const page = client(`${ORIGIN}/`);
    const { scope: s, listeners } = scope([page]);
    installServiceWorker(s);
    expect(Object.keys(listeners).sort()).toEqual(["activate", "install", "notificationclick", "push"]);

    const waits: Promise<unknown>[] = [];
    const waitUntil = (promise: Promise<unknown>) => waits.push(promise);
    (listeners.install as (e: unknown) => void)({});
    expect(s.skipWaiting).toHaveBeenCalled();
    (listeners.push as (e: unknown) => void)({ waitUntil, data: data({ title: "Like", body: "", url: "/likes" }) });
    await Promise.all(waits);
    expect(s.registration.showNotification).toHaveBeenCalledWith("Like", expect.anything());
    expect(page.postMessage).toHaveBeenCalledWith(expect.objectContaining({ type: "NEW_PUSH_MESSAGE" }));
  });

  it("handles a click event built by script (waitUntil throws for untrusted events)", async () => {
    const page = client(`${ORIGIN}/members`);
    const { scope: s, listeners } = scope([page]);
    installServiceWorker(s);
    const notification = { data: { url: "/chats/12" }, close: vi.fn() };
    const waitUntil = () => {
      throw new DOMException("The event handler is already finished.", "InvalidStateError");
    };
    expect(() => (listeners.notificationclick as (e: unknown) => void)({ waitUntil, notification })).not.toThrow();
    await vi.waitFor(() =>
      expect(page.postMessage).toHaveBeenCalledWith({ type: PUSH_CLICK, openUrl: `${ORIGIN}/chats/12` }),
    );
  });
});
