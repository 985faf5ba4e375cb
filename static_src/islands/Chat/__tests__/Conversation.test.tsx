import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

import { resetRealtime } from "../../../lib/realtime";
import { loadRealtime } from "../../../lib/realtimeLater";
import { appStore, initialAppState } from "../../../lib/store";
import { Chat } from "../Chat";
import { Conversation, icebreakerLazy, loadDialogs } from "../Conversation";
import { TYPING_SHOW_MS } from "../useTyping";
import type { ChatProps, MessageData } from "../types";
import { CONVERSATION, ME, OTHER, apiError, chatProps, deferred, fakeApi, history, json, memberPage, message, posts, settle, startFakeRealtime, texts, ticks, type Call, type Handler } from "./fixtures";

const input = () => screen.getByTestId("chat-input") as HTMLTextAreaElement;
const bubbles = () => screen.queryAllByTestId("message");

/** The stored message the server answers a POST /api/message.php with. */
function stored(id: number, body: Record<string, unknown>, extra: Partial<MessageData> = {}): MessageData {
  return message(id, {
    mine: true,
    profile: ME,
    text: String(body.text ?? ""),
    client_id: String(body.client_id),
    created: "2025-03-12T12:00:00+00:00",
    credits: 1,
    ...extra,
  });
}

/** Answers the calls every conversation makes (read, chats list); `send` answers POST message.php. */
function api(send: Handler = () => undefined): Call[] {
  return fakeApi((call) => {
    if (call.path === "/api/chat-read.php") return json(200, { num_unread_messages: 0, unread_total: 0 });
    if (call.path === "/api/chats.php") return json(200, { chats: [] });
    if (call.path === "/api/message.php") return send(call);
    return undefined;
  });
}

function renderChat(extra: Partial<ChatProps> = {}) {
  return render(<Chat {...chatProps(extra)} Conversation={Conversation} />);
}

function type(text: string) {
  fireEvent.change(input(), { target: { value: text } });
}

// The dialogs' modules (the icebreaker's, the gift and report dialogs'), which the page imports on first need, and the live
// connection's, which it imports after its first render, are here from the start
// (ConversationLazy.test.tsx and ConversationRealtimeLater.test.tsx test the imports).
beforeAll(async () => {
  await loadDialogs();
  await icebreakerLazy.load();
  await loadRealtime(); // no member yet: opens no connection (the tests start a fake one)
});

beforeEach(() => {
  memberPage();
});

afterEach(() => {
  cleanup();
  resetRealtime();
  vi.useRealTimers();
  appStore.set(initialAppState());
  sessionStorage.clear();
});

describe("Conversation", () => {
  it("shows the profile, the history and the credits, and reads the conversation", async () => {
    const calls = api();
    renderChat();
    expect(screen.getByTestId("chat-header-name").textContent).toBe("Anna");
    expect(screen.getByTestId("chat-credits-count").textContent).toBe("10");
    expect(screen.getByTestId("chat-credits").getAttribute("href")).toBe("/credits");
    expect(texts()).toEqual(["Hi there", "Hello Anna"]);
    expect(bubbles().map((b) => b.getAttribute("data-mine"))).toEqual(["false", "true"]);
    expect(ticks()).toEqual(["sent"]); // only ours have ticks
    expect(screen.queryByTestId("chat-icebreaker")).toBeNull();
    expect(screen.queryByTestId("chat-icebreaker-offer")).toBeNull();
    await settle();
    expect(calls).toContainEqual({ method: "POST", path: "/api/chat-read.php", params: {}, body: { conversation: CONVERSATION } });
  });

  it("shows message text as text, never as HTML", () => {
    api();
    const html = "<b>x</b><img src=x onerror=alert(1)>";
    renderChat({ history: history([message(1, { mine: false, text: html }), message(2, { text: "<script>alert(2)</script>" })]) });
    expect(texts()).toEqual([html, "<script>alert(2)</script>"]);
    const list = screen.getByTestId("chat-messages");
    expect(list.querySelector("b, img, script")).toBeNull();
  });

  it("sends a text: POST /api/message.php, the message shows, and the credits follow the answer", async () => {
    const answer = deferred<Response>();
    const calls = api(() => answer.promise);
    renderChat();
    type("  How are you?  ");
    fireEvent.click(screen.getByTestId("chat-send"));

    // At once: on screen as "sending", the input empty.
    expect(texts()).toEqual(["Hi there", "Hello Anna", "How are you?"]);
    expect(ticks()).toEqual(["sent", "sending"]);
    expect(input().value).toBe("");
    await settle();
    const sent = posts(calls);
    expect(sent).toHaveLength(1);
    const body = sent[0]!.body as Record<string, unknown>;
    expect(body).toEqual({ conversation: CONVERSATION, client_id: expect.any(String), text: "How are you?" });
    expect(String(body.client_id).length).toBeGreaterThan(8);

    answer.resolve(json(201, { message: stored(3, body), credits: 9 }));
    await settle();
    expect(texts()).toEqual(["Hi there", "Hello Anna", "How are you?"]); // replaced, not added
    expect(ticks()).toEqual(["sent", "sent"]);
    expect(screen.getByTestId("chat-credits-count").textContent).toBe("9");
    expect(appStore.get().user?.credits).toBe(9);
    expect(screen.queryByRole("alert")).toBeNull();

    // The list follows (debounced).
    await settle(400);
    expect(calls.filter((c) => c.path === "/api/chats.php")).toHaveLength(1);
  });

  it("sends with Enter, keeps a new line with Shift+Enter, and sends nothing empty", async () => {
    const calls = api((call) => json(201, { message: stored(3, call.body as Record<string, unknown>), credits: 9 }));
    renderChat();
    fireEvent.keyDown(input(), { key: "Enter" });
    type("   ");
    fireEvent.keyDown(input(), { key: "Enter" });
    expect((screen.getByTestId("chat-send") as HTMLButtonElement).disabled).toBe(true);
    type("line one");
    fireEvent.keyDown(input(), { key: "Enter", shiftKey: true });
    expect(input().value).toBe("line one");
    await settle();
    expect(posts(calls)).toHaveLength(0);

    fireEvent.keyDown(input(), { key: "Enter" });
    await settle();
    expect(posts(calls).map((c) => (c.body as Record<string, unknown>).text)).toEqual(["line one"]);
    expect(texts()).toContain("line one");
  });

  it("402 not_enough_credits: the credits alert with its link, and the text back in the input", async () => {
    const calls = api(() => apiError(402, "not_enough_credits", "Server text that is not shown"));
    renderChat();
    type("Are you there?");
    fireEvent.submit(screen.getByTestId("chat-form"));
    await settle();

    const alert = screen.getByTestId("chat-credit-alert");
    expect(alert.textContent).toContain("You do not have enough credits");
    const link = within(alert).getByTestId("chat-credit-link");
    expect(link.getAttribute("href")).toBe("/credits");
    expect(link.textContent).toBe("Buy credits");
    expect(input().value).toBe("Are you there?");
    expect(texts()).toEqual(["Hi there", "Hello Anna"]); // the failed message is gone
    expect(screen.queryByTestId("chat-premium-alert")).toBeNull();
    expect(screen.getByTestId("chat-credits-count").textContent).toBe("10");
    expect(posts(calls)).toHaveLength(1); // a 4xx is not retried

    // Closing the alert.
    fireEvent.click(within(alert).getByRole("button", { name: "Close" }));
    expect(screen.queryByTestId("chat-credit-alert")).toBeNull();
  });

  it("403 premium_required: the premium alert with its link, and the text back in the input", async () => {
    api(() => apiError(403, "premium_required", "This feature is only available for premium members."));
    renderChat({ strings: { ...chatProps().strings, premiumRequired: "Premium only (from props)" } });
    type("Hello again");
    fireEvent.click(screen.getByTestId("chat-send"));
    await settle();

    const alert = screen.getByTestId("chat-premium-alert");
    expect(alert.textContent).toContain("Premium only (from props)");
    expect(within(alert).getByTestId("chat-premium-link").getAttribute("href")).toBe("/premium");
    expect(screen.queryByTestId("chat-credit-alert")).toBeNull();
    expect(input().value).toBe("Hello again");
    expect(appStore.get().user).not.toBeNull(); // not taken for a logout
  });

  it("another error shows the server's message", async () => {
    api(() => apiError(400, "message_too_long", "This message is too long."));
    renderChat();
    type("x");
    fireEvent.click(screen.getByTestId("chat-send"));
    await settle();
    expect(screen.getByTestId("chat-error-alert").textContent).toContain("This message is too long.");
    expect(input().value).toBe("x");
  });

  it("offers the icebreaker for an empty conversation; an opener fills the input", async () => {
    const calls = api();
    renderChat({ history: history([]) });
    // "Break the ice" in the message area, no modal over the page yet.
    expect(screen.queryByTestId("chat-icebreaker")).toBeNull();
    const offer = screen.getByRole("button", { name: "Break the ice" });
    expect(screen.getByTestId("chat-messages").contains(offer)).toBe(true);
    expect(offer.getAttribute("aria-haspopup")).toBe("dialog");
    fireEvent.click(offer);
    const modal = screen.getByTestId("chat-icebreaker");
    expect(modal.textContent).toContain("Break the ice");
    const choices = within(modal).getAllByTestId("icebreaker-opener");
    expect(choices.map((c) => c.textContent)).toEqual([
      "Hi Anna! How is your day going?",
      "Hey Anna, your profile caught my eye. What are you looking for here?",
    ]);
    fireEvent.click(choices[0]!);
    expect(screen.queryByTestId("chat-icebreaker")).toBeNull();
    expect(input().value).toBe("Hi Anna! How is your day going?");
    expect(document.activeElement).toBe(input());
    await settle();
    expect(posts(calls)).toHaveLength(0); // filled in, not sent
    // Still offered until a message is sent; then the conversation has one and it goes.
    expect(screen.getByTestId("chat-icebreaker-offer")).toBeTruthy();
    fireEvent.click(screen.getByTestId("chat-send"));
    expect(screen.queryByTestId("chat-icebreaker-offer")).toBeNull();
  });

  it("closes the icebreaker with 'Write my own', leaving the input empty and focused", () => {
    api();
    renderChat({ history: history([]) });
    fireEvent.click(screen.getByTestId("chat-icebreaker-open"));
    fireEvent.click(screen.getByTestId("icebreaker-own"));
    expect(screen.queryByTestId("chat-icebreaker")).toBeNull();
    expect(input().value).toBe("");
    expect(document.activeElement).toBe(input());
  });

  it("does not offer the icebreaker for a conversation with messages (or older hidden ones)", () => {
    api();
    const { unmount } = renderChat({ history: history([message(1, { mine: false })]) });
    expect(screen.queryByTestId("chat-icebreaker")).toBeNull();
    expect(screen.queryByTestId("chat-icebreaker-offer")).toBeNull();
    unmount();
    renderChat({ history: history([], { has_older: true }) });
    expect(screen.queryByTestId("chat-icebreaker")).toBeNull();
    expect(screen.queryByTestId("chat-icebreaker-offer")).toBeNull();
    expect(screen.getByTestId("chat-older-hidden").textContent).toBe("Older messages are hidden.");
  });

  it("renders alone (without the list) from the conversation's props", () => {
    api();
    const { view: _view, chats: _chats, history: h, ...rest } = chatProps();
    render(<Conversation {...rest} history={h!} />);
    expect(screen.getByTestId("chat-conversation").getAttribute("data-conversation")).toBe(String(CONVERSATION));
    expect(screen.getByTestId("chat-back").getAttribute("href")).toBe("/chats");
    expect(screen.queryByTestId("chat-list")).toBeNull();
  });

  it("goes back to the list in place: its URL pushed, the list's view, focus on the list", () => {
    api();
    document.title = "Anna | Heartline";
    const push = vi.spyOn(window.history, "pushState");
    renderChat();
    expect(screen.getByTestId("chat-app").className).toBe("chat-app chat-app-conversation");
    // A click with a modifier (new tab) keeps the link's own behaviour.
    const ctrl = fireEvent.click(screen.getByTestId("chat-back"), { ctrlKey: true });
    expect(ctrl).toBe(true);
    expect(push).not.toHaveBeenCalled();
    const plain = fireEvent.click(screen.getByTestId("chat-back"));
    expect(plain).toBe(false); // the default navigation is prevented
    expect(push).toHaveBeenCalledWith({ chatView: "list" }, "", "/chats");
    expect(screen.getByTestId("chat-app").className).toBe("chat-app chat-app-list");
    expect(screen.queryByTestId("chat-conversation")).toBeNull();
    expect(document.activeElement?.className).toBe("chat-sidebar");
    expect(document.title).toBe("Messages | Heartline");
    push.mockRestore();
  });
});

describe("Conversation, live events", () => {
  it("shows '… is typing' for this conversation only, for a few seconds", async () => {
    api();
    const { socket } = startFakeRealtime();
    renderChat();
    act(() => socket.receive({ type: "typing", conversation: CONVERSATION + 1 }));
    expect(screen.queryByTestId("chat-typing")).toBeNull();

    act(() => socket.receive({ type: "typing", conversation: CONVERSATION }));
    expect(screen.getByTestId("chat-typing").textContent).toBe("Anna is typing…");
    await settle(TYPING_SHOW_MS - 100);
    expect(screen.getByTestId("chat-typing")).toBeTruthy();
    await settle(100);
    expect(screen.queryByTestId("chat-typing")).toBeNull();
  });

  it("a new message from the other ends the typing indicator and shows", async () => {
    api();
    const { socket } = startFakeRealtime();
    renderChat();
    act(() => socket.receive({ type: "typing", conversation: CONVERSATION }));
    act(() => socket.receive({ type: "message.new", message: message(3, { mine: false, text: "Just typed this" }) }));
    expect(screen.queryByTestId("chat-typing")).toBeNull();
    expect(texts()).toEqual(["Hi there", "Hello Anna", "Just typed this"]);
    // A message of another conversation does not show here.
    act(() => socket.receive({ type: "message.new", message: message(4, { mine: false, conversation: 99, text: "Elsewhere" }) }));
    expect(texts()).not.toContain("Elsewhere");
    await settle();
  });

  it("sends 'typing' while we write, at most every 2 seconds", async () => {
    api();
    const { socket } = startFakeRealtime();
    renderChat();
    const typingFrames = () => socket.frames().filter((f) => f.type === "typing");
    type("H");
    type("He");
    expect(typingFrames()).toEqual([{ type: "typing", conversation: CONVERSATION }]);
    await settle(2_000);
    type("Hel");
    expect(typingFrames()).toHaveLength(2);
  });

  it("'delivered' and 'read' events change the ticks", async () => {
    api();
    const { socket } = startFakeRealtime();
    renderChat({
      history: history([message(10), message(11, { mine: false }), message(12), message(13)]),
    });
    expect(ticks()).toEqual(["sent", "sent", "sent"]);

    act(() => socket.receive({ type: "delivered", conversation: CONVERSATION, up_to: 12, at: "2025-03-12T12:00:01Z" }));
    expect(ticks()).toEqual(["delivered", "delivered", "sent"]);

    // Another conversation's marks change nothing here.
    act(() => socket.receive({ type: "read", conversation: CONVERSATION + 1, up_to: 13, at: "2025-03-12T12:00:02Z" }));
    expect(ticks()).toEqual(["delivered", "delivered", "sent"]);

    act(() => socket.receive({ type: "read", conversation: CONVERSATION, up_to: 10, at: "2025-03-12T12:00:03Z" }));
    expect(ticks()).toEqual(["read", "delivered", "sent"]);

    act(() => socket.receive({ type: "read", conversation: CONVERSATION, up_to: 13, at: "2025-03-12T12:00:04Z" }));
    expect(ticks()).toEqual(["read", "read", "read"]);
    const labels = screen.getAllByTestId("message-ticks").map((el) => el.getAttribute("aria-label"));
    expect(labels).toEqual(["Read", "Read", "Read"]);
    await settle();
  });

  it("a 'delivered' heard before the POST's answer is kept when the answer comes", async () => {
    const answer = deferred<Response>();
    const calls = api(() => answer.promise);
    const { socket } = startFakeRealtime();
    renderChat({ history: history([message(1, { mine: false })]) });
    type("Quick");
    fireEvent.click(screen.getByTestId("chat-send"));
    await settle();
    const body = posts(calls)[0]!.body as Record<string, unknown>;

    act(() => socket.receive({ type: "delivered", conversation: CONVERSATION, up_to: 2, at: "2025-03-12T12:00:01Z" }));
    expect(ticks()).toEqual(["sending"]);
    answer.resolve(json(201, { message: stored(2, body), credits: 9 }));
    await settle();
    expect(ticks()).toEqual(["delivered"]);
  });

  it("'chat.closed' for this profile shows the notice, disables the input and drops the chat from the list", async () => {
    api();
    const { socket } = startFakeRealtime();
    renderChat();
    act(() => socket.receive({ type: "chat.closed", profile: OTHER + 1 }));
    expect(screen.queryByTestId("chat-closed")).toBeNull();
    expect(input().disabled).toBe(false);

    act(() => socket.receive({ type: "chat.closed", profile: OTHER }));
    expect(screen.getByTestId("chat-closed").textContent).toBe("This conversation is no longer available.");
    expect(input().disabled).toBe(true);
    expect((screen.getByTestId("chat-send") as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId("chat-photo-button") as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId("chat-gift-button") as HTMLButtonElement).disabled).toBe(true);
    expect(screen.queryByTestId(`chat-item-${CONVERSATION}`)).toBeNull();
    expect(screen.getByTestId("chat-item-3")).toBeTruthy();
    await settle();
  });

  it("a 'badges' event updates the credits badge", async () => {
    api();
    const { socket } = startFakeRealtime();
    renderChat();
    act(() => socket.receive({ type: "badges", unreadMessages: 0, newLikes: 0, credits: 4 }));
    expect(screen.getByTestId("chat-credits-count").textContent).toBe("4");
    await settle();
  });
});

describe("Conversation, accessibility", () => {
  const announced = () => screen.getByTestId("chat-announce").textContent;

  it("announces each new incoming message's text once, not the list and not our own", async () => {
    const calls = api((call) => json(200, { message: stored(20, call.body as Record<string, unknown>), credits: 9 }));
    const { socket } = startFakeRealtime();
    renderChat();
    // The messages list is no live region; the history already there is not announced.
    expect(screen.getByTestId("chat-messages").hasAttribute("aria-live")).toBe(false);
    expect(announced()).toBe("");

    act(() => socket.receive({ type: "message.new", message: message(3, { mine: false, text: "Are you there?" }) }));
    const region = screen.getByTestId("chat-announce");
    expect(region.getAttribute("aria-live")).toBe("polite");
    expect(announced()).toBe("Are you there?");

    // Our own message (and its answer) says nothing new.
    type("Yes!");
    fireEvent.click(screen.getByTestId("chat-send"));
    await settle();
    expect(posts(calls)).toHaveLength(1);
    expect(announced()).toBe("Are you there?");

    // The same message again (the socket and a poll both bring it) is not announced again.
    const before = region.firstElementChild;
    act(() => socket.receive({ type: "message.new", message: message(3, { mine: false, text: "Are you there?" }) }));
    expect(region.firstElementChild).toBe(before);

    // A photo is named.
    act(() => socket.receive({ type: "message.new", message: message(4, { mine: false, kind: "photo", text: "" }) }));
    expect(announced()).toBe("Photo");
  });

  it("says '… is typing' in a status region; the visible line is not read twice", () => {
    api();
    const { socket } = startFakeRealtime();
    renderChat();
    const status = screen.getByTestId("chat-typing-status");
    expect(status.getAttribute("role")).toBe("status");
    expect(status.textContent).toBe("");
    act(() => socket.receive({ type: "typing", conversation: CONVERSATION }));
    expect(status.textContent).toBe("Anna is typing…");
    expect(screen.getByTestId("chat-typing").getAttribute("aria-hidden")).toBe("true");
  });

  it("the icebreaker is a labelled modal dialog: focus inside, Escape closes it, focus goes back to its button", () => {
    api();
    renderChat({ history: history([]) });
    const offer = screen.getByTestId("chat-icebreaker-open");
    offer.focus();
    fireEvent.keyDown(offer, { key: "Enter" });
    fireEvent.click(offer); // a button's Enter is its click
    const dialog = screen.getByRole("dialog", { name: "Break the ice" });
    expect(dialog).toBe(screen.getByTestId("chat-icebreaker"));
    expect(dialog.contains(document.activeElement)).toBe(true);
    fireEvent.keyDown(document.activeElement!, { key: "Escape" });
    expect(screen.queryByTestId("chat-icebreaker")).toBeNull();
    expect(document.activeElement).toBe(offer);
  });

  it("shows gifts as pictures named by the gift, in the picker and in the conversation", async () => {
    fakeApi((call) => {
      if (call.path === "/api/gifts.php") {
        return json(200, {
          gifts: [
            { id: 1, name: "Rose", emoji: "🌹", image: "/static/gifts/rose.svg" },
            { id: 2, name: "Own", emoji: "🎈", image: null },
          ],
        });
      }
      if (call.path === "/api/chat-read.php") return json(200, { num_unread_messages: 0, unread_total: 0 });
      if (call.path === "/api/chats.php") return json(200, { chats: [] });
      return undefined;
    });
    const gift = { id: 1, name: "Rose", emoji: "🌹", image: "/static/gifts/rose.svg" };
    renderChat({ history: history([message(1, { mine: false, kind: "gift", text: "", gift })]) });
    const sent = screen.getByTestId("message-gift").querySelector("img")!;
    expect(sent.getAttribute("src")).toBe("/static/gifts/rose.svg");
    expect(sent.getAttribute("alt")).toBe("Rose");
    expect([sent.getAttribute("width"), sent.getAttribute("height")]).toEqual(["64", "64"]);

    fireEvent.click(screen.getByTestId("chat-gift-button"));
    await settle();
    const rose = screen.getByRole("button", { name: "Rose" });
    expect(rose.querySelector("img")!.getAttribute("width")).toBe("48");
    expect(screen.getByRole("button", { name: "Own" }).textContent).toContain("🎈");
  });

  it("the gift dialog gives focus back to the gift button", async () => {
    fakeApi((call) => {
      if (call.path === "/api/gifts.php") return json(200, { gifts: [{ id: 1, name: "Rose", emoji: "🌹", image: "" }] });
      if (call.path === "/api/chat-read.php") return json(200, { num_unread_messages: 0, unread_total: 0 });
      if (call.path === "/api/chats.php") return json(200, { chats: [] });
      return undefined;
    });
    renderChat();
    const button = screen.getByTestId("chat-gift-button");
    button.focus();
    fireEvent.click(button);
    const dialog = screen.getByTestId("chat-gifts");
    expect(document.getElementById(dialog.getAttribute("aria-labelledby")!)!.textContent).toContain("Send a gift");
    await settle();
    expect(screen.getByTestId("gift-1")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.queryByTestId("chat-gifts")).toBeNull();
    expect(document.activeElement).toBe(button);
  });
});

describe("Conversation, report a message", () => {
  function reportApi(answer: () => Response): Call[] {
    return fakeApi((call) => {
      if (call.path === "/api/report.php") return answer();
      if (call.path === "/api/chat-read.php") return json(200, { num_unread_messages: 0, unread_total: 0 });
      if (call.path === "/api/chats.php") return json(200, { chats: [] });
      return undefined;
    });
  }

  it("offers Report on incoming messages only, and sends the reason, text and block", async () => {
    const calls = reportApi(() => json(201, { complaint: 7, blocked: true, message: "ok" }));
    renderChat();
    await act(async () => {
      await loadDialogs();
    });
    const buttons = screen.getAllByTestId("message-report");
    expect(buttons).toHaveLength(1); // "Hi there" from Anna; not our own "Hello Anna"
    expect(buttons[0].getAttribute("aria-label")).toBe("Report this message");
    // A button that looks like one: outlined, a flag and the word, not a bare link.
    expect(buttons[0].classList.contains("btn-outline-secondary")).toBe(true);
    expect(buttons[0].classList.contains("btn-link")).toBe(false);
    expect(buttons[0].querySelector("svg[aria-hidden='true']")).not.toBeNull();
    expect(buttons[0].textContent).toBe("Report");
    buttons[0].focus();
    fireEvent.click(buttons[0]);
    const dialog = screen.getByTestId("chat-report");
    expect(document.getElementById(dialog.getAttribute("aria-labelledby")!)!.textContent).toContain("Report this message");
    expect(within(dialog).getByTestId("chat-report-excerpt").textContent).toBe("Hi there");
    // No reason chosen: said in the dialog, nothing sent.
    fireEvent.click(within(dialog).getByTestId("chat-report-send"));
    expect(within(dialog).getByRole("alert").textContent).toBe("Choose a reason.");
    fireEvent.click(within(dialog).getByLabelText("Asks for money or is a scam"));
    fireEvent.change(within(dialog).getByLabelText("What happened? (optional)"), { target: { value: "Wants money" } });
    fireEvent.click(within(dialog).getByLabelText("Also block Anna"));
    fireEvent.click(within(dialog).getByTestId("chat-report-send"));
    await settle();
    const sent = calls.filter((call) => call.path === "/api/report.php");
    expect(sent.map((call) => call.body)).toEqual([{ message: 1, reason: "scam", text: "Wants money", block: true }]);
    expect(within(dialog).getByTestId("chat-report-done").textContent).toContain("received your report");
    // Blocked: the conversation closes at once.
    expect(screen.getByTestId("chat-closed")).toBeTruthy();
    fireEvent.click(within(dialog).getByTestId("chat-report-close"));
    expect(screen.queryByTestId("chat-report")).toBeNull();
    expect(document.activeElement).toBe(buttons[0]);
  });

  it("reports the conversation from the top bar and shows the server's error", async () => {
    const calls = reportApi(() => apiError(429, "too_many_complaints", "Too many complaints sent, please try again later."));
    renderChat();
    await act(async () => {
      await loadDialogs();
    });
    fireEvent.click(screen.getByRole("button", { name: "Report Anna" }));
    const dialog = screen.getByTestId("chat-report");
    fireEvent.click(within(dialog).getByLabelText("Fake profile"));
    fireEvent.click(within(dialog).getByTestId("chat-report-send"));
    await settle();
    expect(calls.filter((call) => call.path === "/api/report.php").map((call) => call.body)).toEqual([
      { conversation: CONVERSATION, reason: "fake", text: "", block: false },
    ]);
    expect(within(dialog).getByTestId("chat-report-error").textContent).toBe("Too many complaints sent, please try again later.");
    expect(screen.queryByTestId("chat-closed")).toBeNull();
  });
});

describe("Conversation, stay safe", () => {
  beforeEach(() => localStorage.clear());

  it("shows the stay-safe note in a new conversation until it is dismissed for it", () => {
    api();
    const view = renderChat();
    const tip = screen.getByTestId("chat-safety-tip");
    expect(tip.textContent).toContain("Stay safe");
    fireEvent.click(screen.getByRole("button", { name: "Hide this tip" }));
    expect(screen.queryByTestId("chat-safety-tip")).toBeNull();
    view.unmount();
    renderChat();
    expect(screen.queryByTestId("chat-safety-tip")).toBeNull();
  });

  it("shows no note in a longer conversation, and a safety notice under a flagged message", () => {
    api();
    const many = Array.from({ length: 8 }, (_, index) => message(index + 1, { mine: index % 2 === 0, text: `m${index}` }));
    many[1] = message(2, { mine: false, text: "my telegram @sunny", safety_notice: true });
    renderChat({ history: history(many) });
    expect(screen.queryByTestId("chat-safety-tip")).toBeNull();
    const notices = screen.getAllByTestId("message-safety-notice");
    expect(notices).toHaveLength(1);
    expect(notices[0].textContent).toContain("Never send money");
  });
});
