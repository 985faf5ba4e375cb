import { describe, expect, it, vi } from "vitest";

import type { EventListener, RealtimeStatus, StatusListener } from "../../lib/realtime";
import { installSmsWatch, SMS_EVENT } from "../smsWatch";

function fakeRealtime(status: RealtimeStatus = "connecting") {
  const listeners = new Map<string, EventListener[]>();
  const statusListeners: StatusListener[] = [];
  return {
    status,
    on(type: string, listener: EventListener) {
      listeners.set(type, [...(listeners.get(type) ?? []), listener]);
      return () => listeners.set(type, (listeners.get(type) ?? []).filter((one) => one !== listener));
    },
    onStatus(listener: StatusListener) {
      statusListeners.push(listener);
      return () => undefined;
    },
    emit(type: string, event: Record<string, unknown>) {
      for (const listener of listeners.get(type) ?? []) listener({ type, ...event });
    },
    setStatus(next: RealtimeStatus) {
      for (const listener of statusListeners) listener(next);
    },
  };
}

function page(html: string): Document {
  document.body.innerHTML = html;
  return document;
}

describe("installSmsWatch", () => {
  it("reloads the code page when its SMS is reported undelivered", () => {
    const realtime = fakeRealtime();
    const reload = vi.fn();
    installSmsWatch(realtime, page('<div data-sms-watch="12"></div>'), reload);
    realtime.emit(SMS_EVENT, { request: 11, state: "failed" });
    realtime.emit(SMS_EVENT, { request: 12, state: "delivered" });
    expect(reload).not.toHaveBeenCalled();
    realtime.emit(SMS_EVENT, { request: 12, state: "failed" });
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("shows the connection's state on the element", () => {
    const realtime = fakeRealtime("connecting");
    const doc = page('<div data-sms-watch="3"></div>');
    installSmsWatch(realtime, doc, vi.fn());
    const element = doc.querySelector<HTMLElement>("[data-sms-watch]")!;
    expect(element.dataset.smsWatching).toBe("connecting");
    realtime.setStatus("open");
    expect(element.dataset.smsWatching).toBe("open");
  });

  it("does nothing on other pages", () => {
    const realtime = fakeRealtime();
    const reload = vi.fn();
    installSmsWatch(realtime, page("<main></main>"), reload);
    realtime.emit(SMS_EVENT, { request: 1, state: "failed" });
    expect(reload).not.toHaveBeenCalled();
  });
});
