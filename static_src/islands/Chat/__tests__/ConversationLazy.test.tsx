/**
 * The icebreaker (IcebreakerDialog.tsx) and the gift and report dialogs (ConversationDialogs.tsx)
 * are modules of their own that the conversation imports on first need. This file runs without
 * them loaded beforehand (vitest gives each file its own modules): an empty conversation does
 * not import the icebreaker (nor lib/Dialog.tsx) on opening, only when the pointer or the focus
 * reaches "Break the ice", at the latest on its click, which opens it once it is there; the gift
 * button's click imports the gift dialog and opens it once it is there (the click is not lost),
 * and then at once.
 */
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

import { configureApi, resetApiConfig } from "../../../lib/api";
import { resetRealtime } from "../../../lib/realtime";
import { loadRealtime } from "../../../lib/realtimeLater";
import { appStore, initialAppState } from "../../../lib/store";
import { Chat } from "../Chat";
import { Conversation, icebreakerLazy } from "../Conversation";
import { chatProps, fakeApi, history, json } from "./fixtures";

// The live connection's module is here from the start (no member yet: no connection).
beforeAll(async () => {
  await loadRealtime();
});

beforeEach(() => {
  sessionStorage.clear();
  resetApiConfig();
  configureApi({ reload: vi.fn() });
  appStore.set({ ...initialAppState(), user: { id: 1, credits: 10 } });
  fakeApi((call) => {
    if (call.path === "/api/chat-read.php") return json(200, { num_unread_messages: 0, unread_total: 0 });
    if (call.path === "/api/chats.php") return json(200, { chats: [] });
    if (call.path === "/api/gifts.php") return json(200, { gifts: [{ id: 1, name: "Rose", emoji: "🌹", image: null }] });
    return undefined;
  });
});

afterEach(() => {
  cleanup();
  resetRealtime();
  appStore.set(initialAppState());
  sessionStorage.clear();
});

describe("Conversation dialogs loaded on need", () => {
  it("an empty conversation imports the icebreaker on need, not on opening", async () => {
    const importer = vi.spyOn(icebreakerLazy, "load");
    render(<Chat {...chatProps({ history: history([]) })} Conversation={Conversation} />);
    // Opening: "Break the ice" is there, the modal's module is not asked for.
    await act(() => new Promise((resolve) => setTimeout(resolve, 20)));
    expect(screen.getByTestId("chat-icebreaker-offer")).toBeTruthy();
    expect(screen.queryByTestId("chat-icebreaker")).toBeNull();
    expect(importer).not.toHaveBeenCalled();
    expect(icebreakerLazy.loaded()).toBeNull();

    // The click asks for it and opens the modal once it is there (the click is not lost).
    fireEvent.click(screen.getByTestId("chat-icebreaker-open"));
    expect(importer).toHaveBeenCalled();
    const modal = await screen.findByTestId("chat-icebreaker");
    expect(within(modal).getAllByTestId("icebreaker-opener")).toHaveLength(2);
    fireEvent.click(screen.getByTestId("icebreaker-own"));
    expect(screen.queryByTestId("chat-icebreaker")).toBeNull();

    // The gift dialog is not loaded with the icebreaker: the first click imports it and opens it.
    fireEvent.click(screen.getByTestId("chat-gift-button"));
    expect(screen.queryByTestId("chat-gifts")).toBeNull();
    expect(await screen.findByTestId("chat-gifts")).toBeTruthy();
    expect(await screen.findByTestId("gift-1")).toBeTruthy();
    fireEvent.click(screen.getByTestId("chat-gifts").querySelector<HTMLElement>(".app-dialog-close")!);
    expect(screen.queryByTestId("chat-gifts")).toBeNull();

    // Loaded now: the gift button opens its dialog at once.
    fireEvent.click(screen.getByTestId("chat-gift-button"));
    expect(screen.getByTestId("chat-gifts")).toBeTruthy();
  });
});
