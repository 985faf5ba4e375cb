import { act, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { createStore, readAppStateFromPage, updateAppBadge, useStore } from "../store";

describe("createStore", () => {
  it("get/set with a partial object and with an updater", () => {
    const store = createStore({ a: 1, b: "x" });
    expect(store.get()).toEqual({ a: 1, b: "x" });
    store.set({ a: 2 });
    expect(store.get()).toEqual({ a: 2, b: "x" });
    store.set((s) => ({ a: s.a + 10 }));
    expect(store.get()).toEqual({ a: 12, b: "x" });
  });

  it("notifies subscribers with new and previous state, and stops after unsubscribe", () => {
    const store = createStore({ n: 0 });
    const listener = vi.fn();
    const unsubscribe = store.subscribe(listener);
    store.set({ n: 1 });
    expect(listener).toHaveBeenCalledTimes(1);
    expect(listener).toHaveBeenCalledWith({ n: 1 }, { n: 0 });
    unsubscribe();
    store.set({ n: 2 });
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("does not notify when nothing changed", () => {
    const store = createStore({ n: 0 });
    const listener = vi.fn();
    store.subscribe(listener);
    const before = store.get();
    store.set({ n: 0 });
    expect(listener).not.toHaveBeenCalled();
    expect(store.get()).toBe(before);
  });
});

describe("useStore", () => {
  it("re-renders when the selected slice changes, not for other keys", () => {
    const store = createStore({ count: 1, other: "a" });
    let renders = 0;
    const selectCount = (s: { count: number }) => s.count;
    function Counter() {
      renders += 1;
      const count = useStore(store, selectCount);
      return <span data-testid="count">{count}</span>;
    }
    render(<Counter />);
    expect(screen.getByTestId("count").textContent).toBe("1");
    const afterMount = renders;

    act(() => store.set({ count: 5 }));
    expect(screen.getByTestId("count").textContent).toBe("5");
    expect(renders).toBe(afterMount + 1);

    act(() => store.set({ other: "b" }));
    expect(renders).toBe(afterMount + 1);

    act(() => store.set((s) => ({ count: s.count + 1 })));
    expect(screen.getByTestId("count").textContent).toBe("6");
  });
});

describe("readAppStateFromPage", () => {
  afterEach(() => {
    document.body.innerHTML = "";
  });

  it("reads the app-state JSON script", () => {
    document.body.innerHTML = `<script type="application/json" id="app-state">${JSON.stringify({
      user: { id: 7, name: "Bo" },
      totals: { unreadMessages: 3, newLikes: "2" },
      paymentCountry: "NL",
      push: { capable: true, permission: "granted" },
      unknown: 1,
    })}</script>`;
    expect(readAppStateFromPage()).toEqual({
      user: { id: 7, name: "Bo" },
      totals: { unreadMessages: 3, newLikes: 2 },
      paymentCountry: "NL",
      push: { capable: true, permission: "granted", subscribed: false },
    });
  });

  it("returns nothing without the script or with broken JSON", () => {
    expect(readAppStateFromPage()).toEqual({});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    document.body.innerHTML = '<script type="application/json" id="app-state">{nope</script>';
    expect(readAppStateFromPage()).toEqual({});
    expect(error).toHaveBeenCalled();
  });
});

describe("updateAppBadge", () => {
  afterEach(() => {
    delete (navigator as { setAppBadge?: unknown }).setAppBadge;
    delete (navigator as { clearAppBadge?: unknown }).clearAppBadge;
  });

  it("prefixes the title with (N) and replaces or removes an existing prefix", () => {
    document.title = "Chats - Site";
    expect(updateAppBadge({ unreadMessages: 3, newLikes: 2 })).toBe(5);
    expect(document.title).toBe("(5) Chats - Site");
    updateAppBadge({ unreadMessages: 1, newLikes: 0 });
    expect(document.title).toBe("(1) Chats - Site");
    updateAppBadge({ unreadMessages: 0, newLikes: 0 });
    expect(document.title).toBe("Chats - Site");
    updateAppBadge({ unreadMessages: 0, newLikes: 0 });
    expect(document.title).toBe("Chats - Site");
  });

  it("does not strip parentheses that are part of the title", () => {
    document.title = "(Beta) Site";
    updateAppBadge({ unreadMessages: 0, newLikes: 0 });
    expect(document.title).toBe("(Beta) Site");
  });

  it("sets the app badge where supported and clears it at 0", () => {
    const setAppBadge = vi.fn(() => Promise.resolve());
    const clearAppBadge = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, "setAppBadge", { value: setAppBadge, configurable: true });
    Object.defineProperty(navigator, "clearAppBadge", { value: clearAppBadge, configurable: true });
    updateAppBadge({ unreadMessages: 4, newLikes: 1 });
    expect(setAppBadge).toHaveBeenCalledWith(5);
    updateAppBadge({ unreadMessages: 0, newLikes: 0 });
    expect(clearAppBadge).toHaveBeenCalledTimes(1);
  });

  it("stays silent when the badge call fails", async () => {
    Object.defineProperty(navigator, "setAppBadge", {
      value: vi.fn(() => Promise.reject(new Error("denied"))),
      configurable: true,
    });
    expect(() => updateAppBadge({ unreadMessages: 1, newLikes: 0 })).not.toThrow();
    await Promise.resolve();
  });
});
