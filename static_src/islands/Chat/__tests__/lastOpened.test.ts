import { afterEach, describe, expect, it, vi } from "vitest";

import { appStore, createStore, initialAppState, type AppState } from "../../../lib/store";
import { lastOpenedChat, openLastChat, TWO_PANES } from "../lastOpened";
import { urls } from "./fixtures";

const last = { conversation: 7, profile: 42, at: "2026-11-27T17:00:00+00:00" };

function matchMedia(matches: boolean) {
  const spy = vi.fn((query: string) => ({ matches, media: query }) as MediaQueryList);
  vi.stubGlobal("matchMedia", spy);
  return spy;
}

describe("the last opened chat on the list page", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    appStore.set(initialAppState());
  });

  it("goes into the store and, with two panes, gives the conversation's address", () => {
    const store = createStore<AppState>(initialAppState());
    expect(lastOpenedChat({ lastOpened: last, urls }, true, store)).toBe("/chats/7");
    expect(store.get().lastOpenedChat).toEqual(last);
  });

  it("leaves the list on a phone, and when there is none", () => {
    const store = createStore<AppState>(initialAppState());
    expect(lastOpenedChat({ lastOpened: last, urls }, false, store)).toBeNull();
    expect(store.get().lastOpenedChat).toEqual(last);
    expect(lastOpenedChat({ lastOpened: null, urls }, true, store)).toBeNull();
    expect(store.get().lastOpenedChat).toBeNull();
    expect(lastOpenedChat({ urls }, true, store)).toBeNull();
  });

  it("asks the chat layout's breakpoint and replaces /chats with the conversation", () => {
    const spy = matchMedia(true);
    const replace = vi.fn();
    vi.stubGlobal("location", { ...window.location, replace });
    expect(openLastChat({ lastOpened: last, urls })).toBe(true);
    expect(spy).toHaveBeenCalledWith(TWO_PANES);
    expect(TWO_PANES).toBe("(min-width: 768px)");
    expect(replace).toHaveBeenCalledWith("/chats/7");
    expect(appStore.get().lastOpenedChat).toEqual(last);
  });

  it("stays on the list below it", () => {
    matchMedia(false);
    const replace = vi.fn();
    vi.stubGlobal("location", { ...window.location, replace });
    expect(openLastChat({ lastOpened: last, urls })).toBe(false);
    expect(replace).not.toHaveBeenCalled();
  });
});
