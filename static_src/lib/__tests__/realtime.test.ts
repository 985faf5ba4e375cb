import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { createOutbox, newClientId, type OutboxItem, type SendResult } from "../outbox";
import { BACKOFF_MAX_MS, PING_INTERVAL_MS, PONG_TIMEOUT_MS, backoffDelay, createRealtime, socketUrl, type Realtime } from "../realtime";
import { appStore, initialAppState, updateAppBadge } from "../store";
import { FakeSocket } from "./fakeSocket";

const last = () => FakeSocket.all[FakeSocket.all.length - 1];
let realtime: Realtime | null = null;

function start(random = () => 1) {
  realtime = createRealtime({ url: "ws://localhost/ws/", createSocket: (url) => new FakeSocket(url), random });
  return realtime;
}

beforeEach(() => {
  vi.useFakeTimers();
  FakeSocket.all = [];
  appStore.set({ ...initialAppState(), user: { id: 1, credits: 5 } });
});

afterEach(() => {
  realtime?.close();
  realtime = null;
  vi.useRealTimers();
  appStore.set(initialAppState());
  document.title = "";
});

describe("backoffDelay", () => {
  it("doubles with full jitter and stops at the cap", () => {
    expect(backoffDelay(0, () => 0)).toBe(500);
    expect(backoffDelay(0, () => 1)).toBe(1000);
    expect(backoffDelay(3, () => 1)).toBe(8000);
    expect(backoffDelay(3, () => 0)).toBe(4000);
    expect(backoffDelay(20, () => 1)).toBe(BACKOFF_MAX_MS);
    const spread = new Set(Array.from({ length: 20 }, (_, i) => backoffDelay(4, () => i / 20)));
    expect(spread.size).toBeGreaterThan(10);
  });
});

describe("socketUrl", () => {
  it("uses wss on https and the page's own host", () => {
    expect(socketUrl({ protocol: "https:", host: "gay.example.com" })).toBe("wss://gay.example.com/ws/");
    expect(socketUrl({ protocol: "http:", host: "localhost:8000" })).toBe("ws://localhost:8000/ws/");
  });
});

describe("createRealtime", () => {
  it("reconnects with growing delays and starts over after a good connection", async () => {
    const rt = start();
    const statuses: string[] = [];
    rt.onStatus((s) => statuses.push(s));
    expect(FakeSocket.all).toHaveLength(1);
    last().drop();
    expect(rt.status).toBe("down");

    await vi.advanceTimersByTimeAsync(999);
    expect(FakeSocket.all).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeSocket.all).toHaveLength(2); // after 1 s
    last().drop();
    await vi.advanceTimersByTimeAsync(1999);
    expect(FakeSocket.all).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeSocket.all).toHaveLength(3); // after 2 s
    last().drop();
    await vi.advanceTimersByTimeAsync(4000);
    expect(FakeSocket.all).toHaveLength(4); // after 4 s

    last().open();
    expect(rt.status).toBe("open");
    last().drop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(FakeSocket.all).toHaveLength(5); // back to 1 s
    expect(statuses).toEqual(["down", "open", "down"]);
  });

  it("reconnects at once when the browser comes back online", async () => {
    start();
    last().drop();
    window.dispatchEvent(new Event("online"));
    expect(FakeSocket.all).toHaveLength(2);
  });

  it("pings, and takes a silent socket for dead", async () => {
    const rt = start();
    last().open();
    await vi.advanceTimersByTimeAsync(PING_INTERVAL_MS);
    expect(last().frames()).toEqual([{ type: "ping" }]);
    last().receive({ type: "pong" });
    await vi.advanceTimersByTimeAsync(PONG_TIMEOUT_MS);
    expect(rt.status).toBe("open");

    await vi.advanceTimersByTimeAsync(PING_INTERVAL_MS - PONG_TIMEOUT_MS);
    const silent = last();
    await vi.advanceTimersByTimeAsync(PONG_TIMEOUT_MS);
    expect(silent.closed).toBe(4000);
    expect(rt.status).toBe("down");
    await vi.advanceTimersByTimeAsync(1000);
    expect(FakeSocket.all).toHaveLength(2);
  });

  it("dispatches events by type and to '*', ignoring pongs and junk", () => {
    const rt = start();
    last().open();
    const typing = vi.fn();
    const all = vi.fn();
    rt.on("typing", typing);
    const off = rt.on("*", all);
    last().receive({ type: "typing", conversation: 3 });
    last().receive({ type: "pong" });
    last().onmessage?.({ data: "not json" } as MessageEvent);
    expect(typing).toHaveBeenCalledWith({ type: "typing", conversation: 3 });
    expect(all).toHaveBeenCalledTimes(1);
    off();
    last().receive({ type: "like", profile: {} });
    expect(all).toHaveBeenCalledTimes(1);
  });

  it("puts badges in the store: counts, credits, the title prefix", () => {
    const unsubscribe = appStore.subscribe((state, previous) => {
      if (state.totals !== previous.totals) updateAppBadge(state.totals);
    });
    document.title = "Dating";
    start();
    last().open();
    last().receive({ type: "badges", unreadMessages: 3, newLikes: 2, credits: 7 });
    unsubscribe();
    expect(appStore.get().totals).toEqual({ unreadMessages: 3, newLikes: 2 });
    expect(appStore.get().user?.credits).toBe(7);
    expect(document.title).toBe("(5) Dating");
  });

  it("acknowledges the other's new messages as delivered, not its own", () => {
    start();
    last().open();
    last().receive({ type: "message.new", message: { id: 9, conversation: 4, mine: false } });
    last().receive({ type: "message.new", message: { id: 10, conversation: 4, mine: true } });
    expect(last().frames()).toEqual([{ type: "delivered", conversation: 4, up_to: 9 }]);
  });

  it("send() only works while open; close() stops for good", async () => {
    const rt = start();
    expect(rt.send({ type: "typing", conversation: 1 })).toBe(false);
    last().open();
    expect(rt.send({ type: "typing", conversation: 1 })).toBe(true);
    rt.close();
    await vi.advanceTimersByTimeAsync(BACKOFF_MAX_MS * 2);
    expect(FakeSocket.all).toHaveLength(1);
  });
});

describe("createOutbox", () => {
  it("keeps a message written offline and sends it once when the connection returns", async () => {
    const rt = start();
    last().drop();
    let online = false;
    const delivered: string[] = [];
    const send = vi.fn(async (item: OutboxItem): Promise<SendResult> => {
      if (!online) return "offline";
      delivered.push(item.clientId);
      return "sent";
    });
    const outbox = createOutbox({ send });
    outbox.follow(rt);
    expect(await outbox.add({ clientId: "a1", text: "hello" })).toBe("offline");
    expect(outbox.items().map((i) => i.clientId)).toEqual(["a1"]);

    online = true;
    // Both signals at once: the browser is online and the socket opens again.
    window.dispatchEvent(new Event("online"));
    last().open();
    await vi.advanceTimersByTimeAsync(0);
    await outbox.flush();
    expect(delivered).toEqual(["a1"]);
    expect(outbox.items()).toEqual([]);
    outbox.dispose();
  });

  it("keeps the order and drops what failed for good", async () => {
    const results: Record<string, SendResult[]> = { a: ["offline", "sent"], b: ["failed"] };
    const calls: string[] = [];
    const outbox = createOutbox({
      send: async (item) => {
        calls.push(item.clientId);
        return results[item.clientId].shift() ?? "sent";
      },
    });
    await outbox.add({ clientId: "a" });
    await outbox.add({ clientId: "b" });
    expect(outbox.items().map((i) => i.clientId)).toEqual(["a"]); // b failed for good
    await outbox.flush();
    expect(outbox.items()).toEqual([]);
    expect(calls).toEqual(["a", "b", "a"]);
    outbox.dispose();
  });

  it("retries on its own timer", async () => {
    let online = false;
    const send = vi.fn(async (): Promise<SendResult> => (online ? "sent" : "offline"));
    const outbox = createOutbox({ send, retryMs: 5_000 });
    await outbox.add({ clientId: "x" });
    online = true;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(send).toHaveBeenCalledTimes(2);
    expect(outbox.items()).toEqual([]);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(send).toHaveBeenCalledTimes(2);
    outbox.dispose();
  });
});

describe("newClientId", () => {
  it("is unique and fits the server's pattern, also without randomUUID", () => {
    const ids = new Set(Array.from({ length: 50 }, () => newClientId()));
    expect(ids.size).toBe(50);
    vi.stubGlobal("crypto", { getRandomValues: (a: Uint8Array) => a.fill(7) });
    const fallback = newClientId();
    expect(fallback).toMatch(/^[A-Za-z0-9_.:-]{1,64}$/);
  });
});
