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

function client(url: string): SwClient & { postMessage: ReturnType<typeof vi.fn>; focus: ReturnType<typeof vi.fn> } {
  return { url, postMessage: vi.fn(), focus: vi.fn(async () => undefined) };
}

function scope(clients: SwClient[] = []) {
  const listeners: Record<string, (event: never) => void> = {};
  const value = {
    location: { origin: "https://heartline.example", hostname: "heartline.example" },
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
  return { scope: value, listeners };
}

const data = (value: unknown) => ({
  json: () => (typeof value === "string" ? JSON.parse(value) : value),
  text: () => String(value),
});

describe("push payload", () => {
  it("reads {title, body, url} and keeps the url on the site", () => {
    const { scope: s } = scope();
    expect(parsePush(s, data({ title: "New message", body: "Bella: hi", url: "/chats/4" }))).toEqual({
      title: "New message",
      body: "Bella: hi",
      url: "https://heartline.example/chats/4",
    });
    expect(parsePush(s, data({ title: "x", url: "https://evil.example/" })).url).toBe("https://heartline.example/");
    expect(parsePush(s, data("not json {")).body).toBe("not json {");
    expect(parsePush(s, null)).toEqual({ title: "heartline.example", body: "", url: "https://heartline.example/" });
  });

  it("siteUrl falls back to the home page", () => {
    const { scope: s } = scope();
    expect(siteUrl(s, "javascript:alert(1)")).toBe("https://heartline.example/");
    expect(siteUrl(s, 42)).toBe("https://heartline.example/");
    expect(siteUrl(s, "/likes?x=1")).toBe("https://heartline.example/likes?x=1");
  });
});

describe("push", () => {
  it("shows the notification and tells the open pages", async () => {
    const page = client("https://heartline.example/");
    const { scope: s } = scope([page]);
    const payload = { title: "New message", body: "Bella: hi", url: "https://heartline.example/chats/4" };
    await handlePush(s, payload);
    expect(s.registration.showNotification).toHaveBeenCalledWith("New message", {
      body: "Bella: hi",
      data: { url: "https://heartline.example/chats/4" },
    });
    expect(page.postMessage).toHaveBeenCalledWith({ type: PUSH_MESSAGE, payload });
  });
});

describe("notification click", () => {
  const notification = (url: string) => ({ data: { url }, close: vi.fn() });

  it("focuses the tab already on that page", async () => {
    const other = client("https://heartline.example/");
    const there = client("https://heartline.example/chats/4");
    const { scope: s } = scope([other, there]);
    const n = notification("https://heartline.example/chats/4");
    await handleNotificationClick(s, n);
    expect(n.close).toHaveBeenCalled();
    expect(there.focus).toHaveBeenCalled();
    expect(there.postMessage).toHaveBeenCalledWith({ type: PUSH_CLICK, openUrl: "https://heartline.example/chats/4" });
    expect(other.focus).not.toHaveBeenCalled();
    expect(s.clients.openWindow).not.toHaveBeenCalled();
  });

  it("else focuses a tab of the site and asks it to open the page", async () => {
    const page = client("https://heartline.example/members");
    const { scope: s } = scope([page]);
    await handleNotificationClick(s, notification("https://heartline.example/likes"));
    expect(page.focus).toHaveBeenCalled();
    expect(page.postMessage).toHaveBeenCalledWith({ type: PUSH_CLICK, openUrl: "https://heartline.example/likes" });
  });

  it("else opens a new window", async () => {
    const { scope: s } = scope([]);
    await handleNotificationClick(s, notification("https://heartline.example/likes"));
    expect(s.clients.openWindow).toHaveBeenCalledWith("https://heartline.example/likes");
  });
});

describe("installServiceWorker", () => {
  it("wires install, activate, push and notificationclick", async () => {
    const page = client("https://heartline.example/");
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
});
