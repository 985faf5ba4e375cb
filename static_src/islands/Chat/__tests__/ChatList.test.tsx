import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

import { configureApi } from "../../../lib/api";
import { resetRealtime } from "../../../lib/realtime";
import { loadRealtime } from "../../../lib/realtimeLater";
import { setChats } from "../../../lib/refresh";
import { appStore, initialAppState } from "../../../lib/store";
import { Chat } from "../Chat";
import { ChatList } from "../ChatList";
import { apiError, chat, chatProps, deferred, fakeApi, json, memberPage, settle, startFakeRealtime, strings, urls, type Call } from "./fixtures";

const items = () => screen.getAllByTestId(/^chat-item-\d+$/).map((el) => el.getAttribute("data-testid"));

function renderList(chats = [chat(9), chat(4), chat(12)], current: number | null = null) {
  setChats(chats);
  return render(<ChatList strings={strings} urls={urls} current={current} locale="en-GB" />);
}

function deleteChat(conversation: number) {
  fireEvent.click(screen.getByTestId(`chat-delete-${conversation}`));
  fireEvent.click(screen.getByTestId("chat-delete-confirm"));
}

// The live connection's module, which the island imports after its first render, is here from
// the start (no member yet: it opens no connection; the tests start a fake one).
beforeAll(async () => {
  await loadRealtime();
});

beforeEach(() => {
  memberPage();
});

afterEach(() => {
  cleanup();
  resetRealtime();
  vi.useRealTimers();
  appStore.set(initialAppState());
});

describe("ChatList", () => {
  it("shows the chats in the order given (newest first), with name, preview and link", () => {
    const calls = fakeApi(() => undefined);
    renderList([chat(9, { name: "Zoe" }), chat(4, { name: "Anna" }), chat(12, { name: "Mia" })], 4);
    expect(items()).toEqual(["chat-item-9", "chat-item-4", "chat-item-12"]);
    const second = screen.getByTestId("chat-item-4");
    expect(second.textContent).toContain("Anna");
    expect(within(second).getByTestId("chat-preview").textContent).toBe("Hello from 4");
    expect(within(second).getByRole("link").getAttribute("href")).toBe("/chats/4");
    expect(second.classList.contains("active")).toBe(true);
    expect(screen.getByTestId("chat-item-9").classList.contains("active")).toBe(false);
    expect(calls).toEqual([]);
  });

  it("prefixes our own last message and names photos and gifts", () => {
    fakeApi(() => undefined);
    const last = chat(1).last_message!;
    renderList([
      chat(1, { last_message: { ...last, mine: true, text: "See you" } }),
      chat(2, { last_message: { ...last, kind: "photo", text: "" } }),
      chat(3, { last_message: { ...last, kind: "gift", text: "", gift_emoji: "🌹" } }),
      chat(4, { last_message: null }),
      chat(5, { last_message: { ...last, kind: "gift", text: "", gift_emoji: "🧸", gift_name: "Nounours" } }),
    ]);
    const previews = screen.getAllByTestId("chat-preview").map((el) => el.textContent);
    // The chat list preview of a gift shows its name (in the reader's language) when the server gives it.
    expect(previews).toEqual(["You: See you", "📷 Photo", "🌹 Gift", "", "🧸 Nounours"]);
  });

  it("shows the unread count, 99+ above 99, and no badge at 0", () => {
    fakeApi(() => undefined);
    renderList([
      chat(1, { num_unread_messages: 3 }),
      chat(2, { num_unread_messages: 99 }),
      chat(3, { num_unread_messages: 100 }),
      chat(4, { num_unread_messages: 0 }),
    ]);
    expect(screen.getByTestId("chat-unread-1").textContent).toBe("3");
    expect(screen.getByTestId("chat-unread-1").getAttribute("title")).toBe("3 unread");
    expect(screen.getByTestId("chat-unread-2").textContent).toBe("99");
    expect(screen.getByTestId("chat-unread-3").textContent).toBe("99+");
    expect(screen.getByTestId("chat-unread-3").getAttribute("title")).toBe("100 unread");
    expect(screen.queryByTestId("chat-unread-4")).toBeNull();
    expect(screen.getByTestId("chat-item-3").classList.contains("unread")).toBe(true);
    expect(screen.getByTestId("chat-item-4").classList.contains("unread")).toBe(false);
  });

  it("shows a message with HTML as text, creating no element from it", () => {
    fakeApi(() => undefined);
    const html = "<b>x</b><img src=x onerror=alert(1)>";
    const last = chat(1).last_message!;
    renderList([chat(1, { name: "<i>Eve</i>", last_message: { ...last, text: html } })]);
    const item = screen.getByTestId("chat-item-1");
    expect(within(item).getByTestId("chat-preview").textContent).toBe(html);
    expect(item.textContent).toContain("<i>Eve</i>");
    expect(item.querySelector("b, img, i")).toBeNull();
  });

  it("shows the empty state with a link to the search", () => {
    fakeApi(() => undefined);
    renderList([]);
    expect(screen.getByTestId("chat-empty").textContent).toContain("You have no conversations yet.");
    expect(screen.getByTestId("chat-empty-search").getAttribute("href")).toBe("/members");
    // The shared empty state: a decorative icon, the title and its one line.
    const empty = screen.getByTestId("chat-empty");
    expect(empty.className).toBe("empty-state");
    expect(empty.querySelector(".empty-state-icon")!.getAttribute("aria-hidden")).toBe("true");
    expect(empty.querySelector(".empty-state-title")!.textContent).toBe("You have no conversations yet.");
    expect(empty.querySelector(".empty-state-text")!.textContent).not.toBe("");
  });

  it("asks before deleting; Cancel keeps the chat and calls nothing", () => {
    const calls = fakeApi(() => undefined);
    renderList();
    fireEvent.click(screen.getByTestId("chat-delete-4"));
    expect(screen.getByTestId("chat-item-4").textContent).toContain("Delete this conversation?");
    fireEvent.click(within(screen.getByTestId("chat-item-4")).getByText("Cancel"));
    expect(items()).toEqual(["chat-item-9", "chat-item-4", "chat-item-12"]);
    expect(screen.queryByTestId("chat-delete-confirm")).toBeNull();
    expect(calls).toEqual([]);
  });

  it("takes a deleted chat off the list at once, before DELETE /api/chat.php answers", async () => {
    const answer = deferred<Response>();
    const calls = fakeApi((call) => (call.method === "DELETE" ? answer.promise : undefined));
    renderList([chat(9), chat(4, { num_unread_messages: 2 }), chat(12, { num_unread_messages: 1 })]);
    expect(appStore.get().totals.unreadMessages).toBe(3);

    deleteChat(4);
    // Not answered yet, and already gone (with its unread count).
    expect(items()).toEqual(["chat-item-9", "chat-item-12"]);
    expect(appStore.get().totals.unreadMessages).toBe(1);
    await settle();
    expect(calls).toEqual<Call[]>([{ method: "DELETE", path: "/api/chat.php", params: {}, body: { conversation: 4 } }]);

    answer.resolve(json(200, { deleted: 5 }));
    await settle(1_000);
    expect(items()).toEqual(["chat-item-9", "chat-item-12"]);
    expect(screen.queryByTestId("chat-delete-error")).toBeNull();
    expect(calls).toHaveLength(1); // no reload after a good answer
  });

  it("shows the server's message and loads the list again when DELETE fails", async () => {
    const calls = fakeApi((call) => {
      if (call.method === "DELETE") return apiError(404, "conversation_not_found", "This conversation does not exist.");
      if (call.method === "GET" && call.path === "/api/chats.php") {
        return json(200, { chats: [chat(9), chat(4, { name: "Back again", num_unread_messages: 2 })] });
      }
      return undefined;
    });
    renderList();
    deleteChat(4);
    expect(items()).toEqual(["chat-item-9", "chat-item-12"]);
    await settle();

    const alert = screen.getByTestId("chat-delete-error");
    expect(alert.getAttribute("role")).toBe("alert");
    expect(alert.textContent).toBe("This conversation does not exist.");
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(["DELETE /api/chat.php", "GET /api/chats.php"]);
    // The list is the server's again.
    expect(items()).toEqual(["chat-item-9", "chat-item-4"]);
    expect(screen.getByTestId("chat-item-4").textContent).toContain("Back again");
    expect(appStore.get().totals.unreadMessages).toBe(2);

    fireEvent.click(within(alert).getByRole("button", { name: "Close" }));
    expect(screen.queryByTestId("chat-delete-error")).toBeNull();
  });

  it("does not retry a DELETE that could not reach the server, and says so", async () => {
    configureApi({ strings: { networkError: "No connection." } });
    const calls = fakeApi((call) => {
      if (call.method === "DELETE") return Promise.reject(new TypeError("Failed to fetch"));
      if (call.path === "/api/chats.php") return json(200, { chats: [chat(9), chat(4), chat(12)] });
      return undefined;
    });
    renderList();
    deleteChat(12);
    await settle(10_000);
    expect(screen.getByTestId("chat-delete-error").textContent).toBe("No connection.");
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(["DELETE /api/chat.php", "GET /api/chats.php"]);
    expect(items()).toEqual(["chat-item-9", "chat-item-4", "chat-item-12"]);
  });

  it("follows the store: a refresh of appStore.chats shows at once", () => {
    fakeApi(() => undefined);
    renderList([chat(9)]);
    act(() => setChats([chat(11), chat(9)]));
    expect(items()).toEqual(["chat-item-11", "chat-item-9"]);
  });
});

describe("Chat island, list view", () => {
  it("puts the server's chats in the store and shows the placeholder", () => {
    fakeApi(() => undefined);
    render(<Chat {...chatProps({ view: "list", history: null, chats: [chat(2, { num_unread_messages: 4 }), chat(1)] })} />);
    expect(items()).toEqual(["chat-item-2", "chat-item-1"]);
    expect(appStore.get().totals.unreadMessages).toBe(4);
    expect(screen.getByTestId("chat-placeholder").textContent).toBe("Choose a conversation to read it.");
    expect(screen.queryByTestId("chat-conversation")).toBeNull();
  });

  it("reloads the list once, 400 ms after a burst of new messages", async () => {
    const calls = fakeApi((call) =>
      call.path === "/api/chats.php" ? json(200, { chats: [chat(8, { name: "New one" }), chat(2), chat(1)] }) : undefined,
    );
    const { socket } = startFakeRealtime();
    render(<Chat {...chatProps({ view: "list", history: null, chats: [chat(2), chat(1)] })} />);
    act(() => {
      socket.receive({ type: "message.new", message: { id: 80, conversation: 8, mine: false } });
      socket.receive({ type: "message.new", message: { id: 81, conversation: 8, mine: false } });
    });
    await settle(399);
    expect(calls).toEqual([]);
    await settle(1);
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(["GET /api/chats.php"]);
    expect(items()).toEqual(["chat-item-8", "chat-item-2", "chat-item-1"]);
  });

  it("drops a chat closed by a block from the sidebar while another conversation is open", async () => {
    const calls = fakeApi((call) => (call.path === "/api/chats.php" ? json(200, { chats: [chat(2)] }) : undefined));
    const { socket } = startFakeRealtime();
    render(<Chat {...chatProps({ chats: [chat(9), chat(2)] })} />);
    await settle();
    expect(screen.getByTestId("chat-item-9")).toBeTruthy();
    act(() => socket.receive({ type: "chat.closed", profile: 109 }));
    await settle();
    expect(calls.some((c) => c.method === "GET" && c.path === "/api/chats.php")).toBe(true);
    expect(screen.queryByTestId("chat-item-9")).toBeNull();
  });

  it("clears an earlier delete error when a later delete is asked for", async () => {
    let fail = true;
    fakeApi((call) => {
      if (call.method === "DELETE") return fail ? apiError(503, "unavailable", "Try again later.") : json(200, { deleted: 1 });
      if (call.path === "/api/chats.php") return json(200, { chats: [chat(9), chat(4)] });
      return undefined;
    });
    renderList([chat(9), chat(4)]);
    deleteChat(9);
    await settle();
    expect(screen.getByTestId("chat-delete-error").textContent).toContain("Try again later.");
    fail = false;
    deleteChat(4);
    await settle();
    expect(screen.queryByTestId("chat-delete-error")).toBeNull();
  });
});
