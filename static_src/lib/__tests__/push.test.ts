import { afterEach, describe, expect, it, vi } from "vitest";

import { installPushMessageHandler, PUSH_MESSAGE_EVENT, pushPermission, pushSupported, urlBase64ToUint8Array } from "../push";

afterEach(() => {
  delete (navigator as { serviceWorker?: unknown }).serviceWorker;
});

function fakeContainer() {
  const target = new EventTarget();
  const container = Object.assign(target, { startMessages: vi.fn() });
  Object.defineProperty(navigator, "serviceWorker", { value: container, configurable: true });
  return container;
}

describe("push support", () => {
  it("needs service workers, PushManager and Notification", () => {
    expect(pushSupported()).toBe(false);
    expect(pushPermission()).toBe("unsupported");
    fakeContainer();
    vi.stubGlobal("PushManager", function PushManager() {});
    vi.stubGlobal("Notification", { permission: "default" });
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

describe("messages from the service worker", () => {
  it("re-dispatches NEW_PUSH_MESSAGE and opens NEW_PUSH_CLICK's page of the site", () => {
    const container = fakeContainer();
    const assign = vi.fn();
    const win = {
      navigator,
      location: { href: "http://localhost:3000/", origin: "http://localhost:3000", assign },
      dispatchEvent: vi.fn(),
    } as unknown as Window;
    const stop = installPushMessageHandler(win);
    expect(container.startMessages).toHaveBeenCalled();

    container.dispatchEvent(new MessageEvent("message", { data: { type: "NEW_PUSH_MESSAGE", payload: { title: "x" } } }));
    const event = (win.dispatchEvent as ReturnType<typeof vi.fn>).mock.calls[0]![0] as CustomEvent;
    expect(event.type).toBe(PUSH_MESSAGE_EVENT);
    expect(event.detail).toEqual({ title: "x" });

    container.dispatchEvent(new MessageEvent("message", { data: { type: "NEW_PUSH_CLICK", openUrl: "http://localhost:3000/chats/4" } }));
    expect(assign).toHaveBeenCalledWith("http://localhost:3000/chats/4");
    container.dispatchEvent(new MessageEvent("message", { data: { type: "NEW_PUSH_CLICK", openUrl: "https://evil.example/" } }));
    container.dispatchEvent(new MessageEvent("message", { data: { type: "NEW_PUSH_CLICK", openUrl: "http://localhost:3000/" } }));
    expect(assign).toHaveBeenCalledTimes(1);

    stop();
    container.dispatchEvent(new MessageEvent("message", { data: { type: "NEW_PUSH_CLICK", openUrl: "http://localhost:3000/x" } }));
    expect(assign).toHaveBeenCalledTimes(1);
  });
});
