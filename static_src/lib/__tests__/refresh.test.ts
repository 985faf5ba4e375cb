import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { configureApi, resetApiConfig } from "../api";
import { PUSH_MESSAGE_EVENT } from "../push";
import {
  FIRST_REFRESH_MS,
  PUSH_REFRESH_INTERVAL_MS,
  REFRESH_INTERVAL_MS,
  nextDelay,
  refreshOnce,
  startRefresh,
} from "../refresh";
import { appStore, initialAppState, type ChatSummary } from "../store";

function json(status: number, data: unknown): Response {
  return new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
}

type FetchMock = ReturnType<typeof vi.fn<typeof fetch>>;
let fetchMock: FetchMock;
let stop: (() => void) | null = null;
let newLikes = 3;
let chats: ChatSummary[] = [];

function chat(conversation: number, unread: number): ChatSummary {
  return {
    conversation,
    profile: conversation + 100,
    name: `P${conversation}`,
    main_image: null,
    last_message: null,
    num_unread_messages: unread,
    updated: null,
  };
}

function urls(): string[] {
  return fetchMock.mock.calls.map((call) => String(call[0]));
}

function setVisibility(state: "visible" | "hidden") {
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => state });
  document.dispatchEvent(new Event("visibilitychange"));
}

/** Lets the fetch promises and their handlers settle under fake timers. */
async function flush() {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await vi.advanceTimersByTimeAsync(0);
}

beforeEach(() => {
  vi.useFakeTimers();
  resetApiConfig();
  configureApi({ reload: vi.fn() });
  newLikes = 3;
  chats = [chat(11, 2)];
  fetchMock = vi.fn<typeof fetch>(async (input) => {
    const url = String(input);
    if (url.startsWith("/api/user.php")) return json(200, { user: { id: 7, credits: 12 } });
    if (url.startsWith("/api/likes.php")) return json(200, { profiles: [], liked_by: [], matches: [], num_new: newLikes });
    if (url.startsWith("/api/chats.php")) return json(200, { chats });
    return json(404, { error: { code: "not_found", message: "Not found" } });
  });
  vi.stubGlobal("fetch", fetchMock);
  appStore.set({ ...initialAppState(), user: { id: 7, credits: 10 }, totals: { unreadMessages: 2, newLikes: 0 } });
  setVisibility("visible");
});

afterEach(() => {
  stop?.();
  stop = null;
  vi.useRealTimers();
  appStore.set(initialAppState());
  delete (document as { visibilityState?: unknown }).visibilityState;
});

describe("nextDelay", () => {
  it("is 5 s first, then 60 s, or 5 minutes with push", () => {
    expect(nextDelay(true, false)).toBe(5_000);
    expect(nextDelay(true, true)).toBe(5_000);
    expect(nextDelay(false, false)).toBe(60_000);
    expect(nextDelay(false, true)).toBe(300_000);
  });
});

describe("startRefresh", () => {
  it("refreshes user, likes and chats first after 5 s, then every 60 s", async () => {
    stop = startRefresh();
    await vi.advanceTimersByTimeAsync(FIRST_REFRESH_MS - 1);
    expect(fetchMock).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(urls().sort()).toEqual(["/api/chats.php", "/api/likes.php", "/api/user.php"]);
    expect(appStore.get().user).toEqual({ id: 7, credits: 12 });
    expect(appStore.get().chats?.map((c) => c.conversation)).toEqual([11]);
    expect(appStore.get().totals).toEqual({ unreadMessages: 2, newLikes: 3 });

    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS - 1);
    expect(fetchMock).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(6);
  });

  it("waits 5 minutes between refreshes while push is subscribed", async () => {
    appStore.set({ push: { capable: true, permission: "granted", subscribed: true } });
    stop = startRefresh();
    await vi.advanceTimersByTimeAsync(FIRST_REFRESH_MS);
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS * 4);
    expect(fetchMock).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(PUSH_REFRESH_INTERVAL_MS - REFRESH_INTERVAL_MS * 4);
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(6);
  });

  it("goes to 5 minutes once the page learns that push is subscribed (after the first refresh)", async () => {
    stop = startRefresh();
    await vi.advanceTimersByTimeAsync(FIRST_REFRESH_MS);
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(3);
    // The browser's subscription is found (syncPushState) or the member turns push on.
    appStore.set((state) => ({ push: { ...state.push, capable: true, permission: "granted", subscribed: true } }));
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS * 2);
    expect(fetchMock).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(PUSH_REFRESH_INTERVAL_MS - REFRESH_INTERVAL_MS * 2);
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(6);
  });

  it("refreshes at once on a push, then waits the whole interval again", async () => {
    appStore.set({ push: { capable: true, permission: "granted", subscribed: true } });
    stop = startRefresh();
    await vi.advanceTimersByTimeAsync(FIRST_REFRESH_MS);
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(3);
    newLikes = 9;
    window.dispatchEvent(new CustomEvent(PUSH_MESSAGE_EVENT, { detail: { kind: "like" } }));
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(6);
    expect(appStore.get().totals.newLikes).toBe(9);
    await vi.advanceTimersByTimeAsync(PUSH_REFRESH_INTERVAL_MS - 1);
    expect(fetchMock).toHaveBeenCalledTimes(6);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(9);
  });

  it("does not refresh on a push while hidden or logged out, or after stopping", async () => {
    stop = startRefresh();
    setVisibility("hidden");
    window.dispatchEvent(new CustomEvent(PUSH_MESSAGE_EVENT));
    await flush();
    expect(fetchMock).not.toHaveBeenCalled();
    setVisibility("visible"); // becoming visible refreshes once
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(3);
    stop();
    stop = null;
    window.dispatchEvent(new CustomEvent(PUSH_MESSAGE_EVENT));
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it("updates the totals through the store, so listeners (badges) see the new count", async () => {
    const listener = vi.fn();
    const unsubscribe = appStore.subscribe(listener);
    newLikes = 120;
    stop = startRefresh();
    await vi.advanceTimersByTimeAsync(FIRST_REFRESH_MS);
    await flush();
    unsubscribe();
    expect(appStore.get().totals.newLikes).toBe(120);
    expect(listener.mock.calls.some(([state, prev]) => state.totals !== prev.totals)).toBe(true);
  });

  it("is silent on errors and keeps going", async () => {
    const error = vi.spyOn(console, "error");
    fetchMock.mockImplementation(async () => json(503, { error: { code: "unavailable", message: "Down" } }));
    stop = startRefresh();
    await vi.advanceTimersByTimeAsync(FIRST_REFRESH_MS);
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(3); // no retries for the periodic refresh
    expect(appStore.get().user).toEqual({ id: 7, credits: 10 });
    expect(appStore.get().totals.newLikes).toBe(0);
    expect(error).not.toHaveBeenCalled();

    fetchMock.mockImplementation(async () => {
      throw new TypeError("Failed to fetch");
    });
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS);
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(6);
    expect(appStore.get().user).not.toBeNull();
  });

  it("does nothing for visitors and stops when the member logs out", async () => {
    appStore.set({ user: null });
    stop = startRefresh();
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS * 3);
    expect(fetchMock).not.toHaveBeenCalled();

    appStore.set({ user: { id: 7 } });
    await vi.advanceTimersByTimeAsync(FIRST_REFRESH_MS);
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(3);

    appStore.set({ user: null });
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS * 3);
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it("stops when user.php says the session has ended", async () => {
    fetchMock.mockImplementation(async (input) =>
      String(input).startsWith("/api/user.php")
        ? json(403, { error: { code: "authentication_required", message: "Log in" } })
        : json(200, { num_new: 1 }),
    );
    stop = startRefresh();
    await vi.advanceTimersByTimeAsync(FIRST_REFRESH_MS);
    await flush();
    expect(appStore.get().user).toBeNull();
    const calls = fetchMock.mock.calls.length;
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS * 3);
    expect(fetchMock).toHaveBeenCalledTimes(calls);
  });

  it("pauses while the page is hidden and refreshes once on becoming visible", async () => {
    stop = startRefresh();
    await vi.advanceTimersByTimeAsync(FIRST_REFRESH_MS);
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(3);

    setVisibility("hidden");
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS * 5);
    expect(fetchMock).toHaveBeenCalledTimes(3);

    setVisibility("visible");
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(6);

    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS - 1);
    expect(fetchMock).toHaveBeenCalledTimes(6);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(9);
  });

  it("stop() clears the timer", async () => {
    stop = startRefresh();
    stop();
    stop = null;
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS * 2);
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

describe("refreshOnce", () => {
  it("leaves the totals object alone when the count did not change", async () => {
    appStore.set({ totals: { unreadMessages: 2, newLikes: 3 } });
    const before = appStore.get().totals;
    await refreshOnce();
    expect(appStore.get().totals).toBe(before);
  });
});

describe("a chat deleted while the list is being fetched", () => {
  it("does not come back from the answer that was asked for before the delete", async () => {
    const { reloadChats, removeChat, setChats } = await import("../refresh");
    setChats([chat(11, 0), chat(12, 0)]);
    let answer: (response: Response) => void = () => {};
    fetchMock.mockImplementationOnce(() => new Promise<Response>((resolve) => (answer = resolve)));
    const stale = reloadChats();
    removeChat(11);
    answer(json(200, { chats: [chat(11, 0), chat(12, 0)] }));
    await stale;
    expect(appStore.get().chats?.map((c) => c.conversation)).toEqual([12]);

    // The delete was refused: the list asked for afterwards brings it back.
    fetchMock.mockImplementationOnce(async () => json(200, { chats: [chat(11, 0), chat(12, 0)] }));
    await reloadChats();
    expect(appStore.get().chats?.map((c) => c.conversation)).toEqual([11, 12]);
  });
});
