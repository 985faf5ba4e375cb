/**
 * The conversation's transport (useConversationTransport.ts): messages written offline wait in
 * the outbox in the order written and go out in that order, one at a time, each with its
 * client_id, when the connection returns; a refused one leaves the list and is handed back.
 */
import { act, renderHook } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { ApiError } from "../../../lib/api";
import { newClientId } from "../../../lib/outbox";
import { OUTBOX_RETRY_MS, useConversationTransport, type SendItem, type TransportListeners } from "../useConversationTransport";
import type { MessageData } from "../types";
import { CONVERSATION, ME, apiError, deferred, fakeApi, history, json, memberPage, message, posts, settle, type Call } from "./fixtures";

const HELLO = message(1, { mine: false, text: "Hi" });
let online = true;
let answers: ((call: Call) => Response | Promise<Response>)[] = [];
let calls: Call[] = [];
/** What the fake server has stored (the history polling finds them). */
let server: MessageData[] = [];

beforeEach(() => {
  memberPage();
  online = true;
  answers = [];
  server = [HELLO];
  vi.spyOn(navigator, "onLine", "get").mockImplementation(() => online);
  calls = fakeApi((call) => {
    if (call.path === "/api/chats.php") return json(200, { chats: [] });
    if (call.path === "/api/chat.php" && call.method === "GET") return json(200, history(server));
    if (call.path !== "/api/message.php") return undefined;
    if (!online) throw new TypeError("Failed to fetch"); // no network: fetch rejects
    const answer = answers.shift();
    return answer ? answer(call) : stored(call);
  });
});

afterEach(() => {
  vi.useRealTimers();
});

/** The server's answer to a message POST: stored with the next id, its client_id kept. */
let nextId = 10;
function stored(call: Call): Response {
  const body = call.body as Record<string, unknown>;
  const saved = message(nextId++, { mine: true, profile: ME, text: String(body.text), client_id: String(body.client_id) });
  server.push(saved);
  return json(201, { message: saved, credits: 9 });
}

function render(failed: TransportListeners["failed"] = () => {}) {
  const listeners = { unread: vi.fn(), incoming: vi.fn(), failed: vi.fn(failed) };
  // null: no live connection (the outbox does not wait for one).
  const hook = renderHook(() => useConversationTransport(history([HELLO]), null, listeners));
  const write = (text: string) => {
    const item: SendItem = { clientId: newClientId(), kind: "text", text };
    act(() => hook.result.current[4](item, { text }));
    return item.clientId;
  };
  const shown = () => hook.result.current[0].map((m) => [m.text, m.local ?? "sent"]);
  return { hook, listeners, write, shown };
}

const sentTexts = () => posts(calls).map((call) => (call.body as Record<string, unknown>).text);

describe("useConversationTransport, the outbox", () => {
  it("messages written offline wait in order and go out in that order, once each, when the browser is online again", async () => {
    const { hook, write, shown } = render();
    online = false;
    const ids = [write("one"), write("two"), write("three")];
    await settle();
    expect(shown()).toEqual([["Hi", "sent"], ["one", "queued"], ["two", "queued"], ["three", "queued"]]);
    expect(hook.result.current[3]).toBe(true); // offline: the notice shows

    // Back online: the first is in flight, the others wait for its answer.
    online = true;
    const first = deferred<Response>();
    answers.push(() => first.promise);
    const before = posts(calls).length;
    act(() => void window.dispatchEvent(new Event("online")));
    await settle();
    expect(sentTexts().slice(before)).toEqual(["one"]);

    first.resolve(stored(posts(calls).at(-1)!));
    await settle();
    expect(sentTexts().slice(before)).toEqual(["one", "two", "three"]);
    expect(posts(calls).slice(before).map((call) => (call.body as Record<string, unknown>).client_id)).toEqual(ids);
    expect(shown()).toEqual([["Hi", "sent"], ["one", "sent"], ["two", "sent"], ["three", "sent"]]);
    expect(hook.result.current[3]).toBe(false);

    // Nothing is sent again later (the retry timer stopped with an empty outbox).
    const after = posts(calls).length;
    await settle(OUTBOX_RETRY_MS * 2);
    expect(posts(calls)).toHaveLength(after);
  });

  it("a send that fails for the connection (a 5xx) waits, shown as queued, and the retry sends it once", async () => {
    const { write, shown } = render();
    answers.push(() => apiError(503, "unavailable", "Try again"));
    write("first");
    await settle();
    expect(shown().at(-1)).toEqual(["first", "queued"]);
    write("second"); // goes out at once (nothing is in flight), and is stored first
    await settle();
    expect(shown().slice(1)).toEqual([["second", "sent"], ["first", "queued"]]);

    await settle(OUTBOX_RETRY_MS);
    expect(sentTexts()).toEqual(["first", "second", "first"]);
    expect(shown().slice(1)).toEqual([["second", "sent"], ["first", "sent"]]);
  });

  it("a refused send leaves the list and is handed back with its error; a closed chat hands back no error", async () => {
    const failed = vi.fn();
    const { hook, write, shown } = render(failed);
    answers.push(() => apiError(402, "not_enough_credits", "Not enough credits"));
    write("too dear");
    await settle();
    expect(shown()).toEqual([["Hi", "sent"]]);
    expect(failed).toHaveBeenCalledTimes(1);
    const [item, err] = failed.mock.calls[0]!;
    expect(item).toMatchObject({ kind: "text", text: "too dear" });
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("not_enough_credits");
    expect(hook.result.current[2]).toBe(false);

    answers.push(() => apiError(404, "profile_not_available", "Gone"));
    write("hello?");
    await settle();
    expect(failed).toHaveBeenLastCalledWith(expect.objectContaining({ text: "hello?" }), null);
    expect(hook.result.current[2]).toBe(true); // closed
    expect(posts(calls).map((call) => (call.body as Record<string, unknown>).conversation)).toEqual([CONVERSATION, CONVERSATION]);
  });
});
