import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const showPushNotice = vi.hoisted(() => vi.fn());
vi.mock("../pushNotice", () => ({ default: showPushNotice }));

import { installPushMessageHandler, PUSH_MESSAGE_EVENT } from "../push";
import { rememberPushMessage } from "../pushMessages";
import { pushPermission, pushSupported } from "../pushSupport";
import { currentPushSubscription, syncPushState, urlBase64ToUint8Array } from "../pushSubscription";
import { createStore, initialAppState, PUSH_LAST_MESSAGE_KEY, readPushLastMessage, type AppState } from "../store";

afterEach(() => {
  delete (navigator as { serviceWorker?: unknown }).serviceWorker;
  sessionStorage.clear();
});

function fakeContainer(extra: Record<string, unknown> = {}) {
  const target = new EventTarget();
  const container = Object.assign(target, { startMessages: vi.fn(), register: vi.fn(), ...extra });
  Object.defineProperty(navigator, "serviceWorker", { value: container, configurable: true });
  return container;
}

function supportPush(permission: NotificationPermission = "granted") {
  vi.stubGlobal("PushManager", function PushManager() {});
  vi.stubGlobal("Notification", { permission });
}

describe("push support", () => {
  it("needs service workers, PushManager and Notification", () => {
    expect(pushSupported()).toBe(false);
    expect(pushPermission()).toBe("unsupported");
    fakeContainer();
    supportPush("default");
    expect(pushSupported()).toBe(true);
    expect(pushPermission()).toBe("unknown");
  });

  it("decodes the URL-safe base64 VAPID key", () => {
    const bytes = urlBase64ToUint8Array("BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U");
    expect(bytes).toHaveLength(65);
    expect(bytes[0]).toBe(4);
    expect([...urlBase64ToUint8Array("_-8")]).toEqual([255, 239]);
  });
});

describe("the browser's subscription on page load", () => {
  it("is looked up without registering a worker or asking for permission", async () => {
    const getRegistration = vi.fn(async () => undefined);
    const container = fakeContainer({ getRegistration });
    const requestPermission = vi.fn();
    vi.stubGlobal("PushManager", function PushManager() {});
    vi.stubGlobal("Notification", { permission: "default", requestPermission });
    const store = createStore<AppState>(initialAppState());
    expect(await currentPushSubscription()).toBeNull();
    expect(await syncPushState(window, store)).toBe(false);
    expect(getRegistration).toHaveBeenCalledWith("/");
    expect(container.register).not.toHaveBeenCalled();
    expect(requestPermission).not.toHaveBeenCalled();
    expect(store.get().push).toMatchObject({ capable: true, permission: "unknown", subscribed: false });
  });

  it("marks the store subscribed when the worker has a subscription and notifications are allowed", async () => {
    const subscription = { endpoint: "https://push.example/1" };
    const getSubscription = vi.fn(async () => subscription);
    fakeContainer({ getRegistration: vi.fn(async () => ({ pushManager: { getSubscription } })) });
    supportPush("granted");
    const store = createStore<AppState>(initialAppState());
    expect(await currentPushSubscription()).toBe(subscription);
    expect(await syncPushState(window, store)).toBe(true);
    expect(store.get().push).toMatchObject({ capable: true, permission: "granted", subscribed: true });
  });

  it("is not subscribed when notifications were refused, or when looking fails", async () => {
    const getSubscription = vi.fn(async () => ({ endpoint: "https://push.example/1" }));
    fakeContainer({ getRegistration: vi.fn(async () => ({ pushManager: { getSubscription } })) });
    supportPush("denied");
    const store = createStore<AppState>(initialAppState());
    expect(await syncPushState(window, store)).toBe(false);
    expect(store.get().push).toMatchObject({ permission: "denied", subscribed: false });

    fakeContainer({ getRegistration: vi.fn(async () => Promise.reject(new Error("SecurityError"))) });
    expect(await currentPushSubscription()).toBeNull();
  });
});

describe("the last push message", () => {
  beforeEach(() => sessionStorage.clear());

  it("is kept as {id, kind, at} in the store and in sessionStorage", () => {
    const store = createStore<AppState>(initialAppState());
    const message = rememberPushMessage({ id: "n-81", kind: "new_messages", title: "x" }, store, 1_700_000_000_000);
    expect(message).toEqual({ id: "n-81", kind: "new_messages", at: 1_700_000_000_000 });
    expect(store.get().push.lastMessage).toEqual(message);
    expect(JSON.parse(sessionStorage.getItem(PUSH_LAST_MESSAGE_KEY)!)).toEqual(message);
    // A reload reads it back.
    expect(readPushLastMessage()).toEqual(message);
  });

  it("reads back only a well-formed message", () => {
    sessionStorage.setItem(PUSH_LAST_MESSAGE_KEY, "{broken");
    expect(readPushLastMessage()).toBeNull();
    sessionStorage.setItem(PUSH_LAST_MESSAGE_KEY, JSON.stringify({ id: 1, kind: "like", at: 5 }));
    expect(readPushLastMessage()).toBeNull();
    expect(rememberPushMessage(null, createStore<AppState>(initialAppState()), 5)).toEqual({ id: "", kind: "", at: 5 });
  });
});

describe("messages from the service worker", () => {
  function page(href: string) {
    const container = fakeContainer();
    const assign = vi.fn();
    const events: CustomEvent[] = [];
    const url = new URL(href);
    const win = {
      navigator,
      location: { href, origin: url.origin, assign },
      dispatchEvent: vi.fn((event: CustomEvent) => {
        events.push(event);
        return true;
      }),
    } as unknown as Window;
    const store = createStore<AppState>(initialAppState());
    const stop = installPushMessageHandler(win, { store });
    // What a message does is imported with the first one (lib/pushMessages.ts), then in order.
    const send = async (data: unknown) => {
      container.dispatchEvent(new MessageEvent("message", { data }));
      await vi.dynamicImportSettled();
      await Promise.resolve();
    };
    return { container, assign, events, store, stop, send };
  }

  it("NEW_PUSH_MESSAGE stores the last message and dispatches the refresh event", async () => {
    const { container, events, store, send } = page("http://localhost:3000/");
    expect(container.startMessages).toHaveBeenCalled();
    const payload = { id: "n-81", kind: "like", title: "x", url: "http://localhost:3000/likes" };
    await send({ type: "NEW_PUSH_MESSAGE", payload });
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe(PUSH_MESSAGE_EVENT);
    expect(events[0]!.detail).toEqual(payload);
    expect(store.get().push.lastMessage).toMatchObject({ id: "n-81", kind: "like" });
    expect(typeof store.get().push.lastMessage?.at).toBe("number");
    expect(JSON.parse(sessionStorage.getItem(PUSH_LAST_MESSAGE_KEY)!)).toMatchObject({ id: "n-81", kind: "like" });
  });

  it("NEW_PUSH_MESSAGE without an OS notification (inPage) shows it in the page", async () => {
    const { store, send } = page("http://localhost:3000/");
    const first = { id: "n-81", kind: "like", title: "x", url: "http://localhost:3000/likes" };
    await send({ type: "NEW_PUSH_MESSAGE", payload: first, inPage: false });
    await send({ type: "NEW_PUSH_MESSAGE", payload: first });
    await vi.dynamicImportSettled();
    expect(showPushNotice).not.toHaveBeenCalled();
    const lastBefore = store.get().push.lastMessage;
    const second = { ...first, id: "n-82" };
    await send({ type: "NEW_PUSH_MESSAGE", payload: second, inPage: true });
    await vi.dynamicImportSettled();
    // With the message remembered before this one: a redelivery of it is not shown again.
    expect(showPushNotice).toHaveBeenCalledTimes(1);
    expect(showPushNotice.mock.calls[0]![0]).toEqual({ type: "NEW_PUSH_MESSAGE", payload: second, inPage: true });
    expect(showPushNotice.mock.calls[0]![1].push.lastMessage).toEqual(lastBefore);
    expect(store.get().push.lastMessage).toMatchObject({ id: "n-82" });
  });

  it("NEW_PUSH_CLICK with checkUrl refreshes this page when it is that page, without navigating", async () => {
    const { assign, events, send } = page("http://localhost:3000/chats/12#end");
    await send({ type: "NEW_PUSH_CLICK", checkUrl: "http://localhost:3000/chats/12" });
    expect(assign).not.toHaveBeenCalled();
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe(PUSH_MESSAGE_EVENT);
    expect(events[0]!.detail).toEqual({ checkUrl: "http://localhost:3000/chats/12" });
  });

  it("NEW_PUSH_CLICK with checkUrl of another page goes there", async () => {
    const { assign, events, send } = page("http://localhost:3000/chats/11");
    await send({ type: "NEW_PUSH_CLICK", checkUrl: "http://localhost:3000/chats/12" });
    expect(assign).toHaveBeenCalledWith("http://localhost:3000/chats/12");
    expect(events).toHaveLength(0);
  });

  it("NEW_PUSH_CLICK with openUrl navigates to pages of the site only", async () => {
    const { assign, events, stop, send } = page("http://localhost:3000/");
    await send({ type: "NEW_PUSH_CLICK", openUrl: "http://localhost:3000/chats/4" });
    expect(assign).toHaveBeenCalledWith("http://localhost:3000/chats/4");
    await send({ type: "NEW_PUSH_CLICK", openUrl: "https://evil.example/" });
    await send({ type: "NEW_PUSH_CLICK", checkUrl: "https://evil.example/chats/4" });
    expect(assign).toHaveBeenCalledTimes(1);
    expect(events).toHaveLength(0);
    // The page it is on already: refreshed, not loaded again.
    await send({ type: "NEW_PUSH_CLICK", openUrl: "http://localhost:3000/" });
    expect(assign).toHaveBeenCalledTimes(1);
    expect(events.map((e) => e.detail)).toEqual([{ openUrl: "http://localhost:3000/" }]);

    stop();
    await send({ type: "NEW_PUSH_CLICK", openUrl: "http://localhost:3000/x" });
    await send({ type: "NEW_PUSH_MESSAGE", payload: {} });
    expect(assign).toHaveBeenCalledTimes(1);
    expect(events).toHaveLength(1);
  });

  it("ignores other messages", async () => {
    const { assign, events, store, send } = page("http://localhost:3000/");
    await send(null);
    await send("NEW_PUSH_MESSAGE");
    await send({ type: "SOMETHING_ELSE", openUrl: "http://localhost:3000/x" });
    expect(assign).not.toHaveBeenCalled();
    expect(events).toHaveLength(0);
    expect(store.get().push.lastMessage).toBeUndefined();
  });
});
