/**
 * The live connection's module (lib/realtime.ts) is not among the conversation page's first
 * modules: the island imports it after its first render (lib/realtimeLater.ts), which opens the
 * page's connection for a member. This file runs without it imported beforehand (vitest gives
 * each file its own modules). Until it is there the conversation counts as "connecting": no
 * polling, no offline notice; a message written meanwhile waits in the outbox and is sent once.
 */
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { FakeSocket } from "../../../lib/__tests__/fakeSocket";
import { getRealtime, resetRealtime } from "../../../lib/realtime";
import { loadRealtime } from "../../../lib/realtimeLater";
import { appStore, initialAppState } from "../../../lib/store";
import { Chat } from "../Chat";
import { Conversation } from "../Conversation";
import { HISTORY_POLL_MS } from "../useConversationTransport";
import { CONVERSATION, apiError, chatProps, fakeApi, json, memberPage, message, posts, settle, texts, ticks, type Call } from "./fixtures";

const historyGets = (calls: Call[]) => calls.filter((c) => c.method === "GET" && c.path === "/api/chat.php");

beforeEach(() => {
  memberPage();
  FakeSocket.all = [];
  vi.stubGlobal("WebSocket", FakeSocket);
});

afterEach(() => {
  cleanup();
  resetRealtime();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  appStore.set(initialAppState());
  sessionStorage.clear();
});

describe("Conversation, the live connection imported after the first render", () => {
  it("counts as connecting meanwhile, then takes the page's connection; a message written before is sent once", async () => {
    let online = false;
    const calls = fakeApi((call) => {
      if (call.path === "/api/chat-read.php") return json(200, { num_unread_messages: 0, unread_total: 0 });
      if (call.path === "/api/chats.php") return json(200, { chats: [] });
      if (call.path === "/api/message.php") {
        if (!online) return apiError(503, "unavailable", "Unavailable");
        const body = call.body as Record<string, unknown>;
        return json(201, {
          message: message(3, { text: String(body.text), client_id: String(body.client_id), created: "2025-03-12T12:00:00+00:00" }),
          credits: 9,
        });
      }
      return undefined;
    });
    const intervals = vi.spyOn(window, "setInterval");
    render(<Chat {...chatProps()} Conversation={Conversation} />);

    // First render: the module is being imported; no poll is set up, no offline notice shows.
    expect(intervals.mock.calls.some(([, ms]) => ms === HISTORY_POLL_MS)).toBe(false);
    expect(screen.queryByTestId("chat-offline")).toBeNull();
    expect(FakeSocket.all).toHaveLength(0);

    // A message written now: the server cannot take it yet, so it waits in the outbox.
    fireEvent.change(screen.getByTestId("chat-input"), { target: { value: "Before the socket" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await act(async () => {
      await loadRealtime();
    });
    await settle();
    expect(ticks()).toEqual(["sent", "queued"]);

    // The module is there: it opened the page's connection for the member, still connecting.
    expect(FakeSocket.all).toHaveLength(1);
    expect(getRealtime()?.status).toBe("connecting");
    await settle(HISTORY_POLL_MS * 2);
    expect(historyGets(calls)).toEqual([]); // connecting: no polling

    // Open: the outbox sends what waited (same client_id), live events show.
    online = true;
    const socket = FakeSocket.all[0]!;
    act(() => socket.open());
    await settle();
    const sent = posts(calls);
    expect(new Set(sent.map((c) => (c.body as Record<string, unknown>).client_id)).size).toBe(1);
    expect(texts()).toEqual(["Hi there", "Hello Anna", "Before the socket"]);
    expect(ticks()).toEqual(["sent", "sent"]);
    expect(historyGets(calls)).toEqual([]); // never down: nothing to catch up

    act(() => socket.receive({ type: "message.new", message: message(4, { mine: false, text: "Live again" }) }));
    expect(texts()).toEqual(["Hi there", "Hello Anna", "Before the socket", "Live again"]);
    fireEvent.change(screen.getByTestId("chat-input"), { target: { value: "T" } });
    expect(socket.frames()).toContainEqual({ type: "typing", conversation: CONVERSATION });
    await settle();
  });
});
