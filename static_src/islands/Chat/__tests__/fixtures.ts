/** Shared data and fakes of the Chat island's tests (props shaped like apps/chat/views.py `_props`). */
import { act, screen } from "@testing-library/react";
import { vi } from "vitest";

import { FakeSocket } from "../../../lib/__tests__/fakeSocket";
import { configureApi, resetApiConfig } from "../../../lib/api";
import { startRealtime, type Realtime } from "../../../lib/realtime";
import { appStore, initialAppState } from "../../../lib/store";
import type { ChatSummary, ChatProps, History, MessageData } from "../types";

/** apps/chat/views.py chat_strings() (English). */
export const strings: Record<string, string> = {
  title: "Messages",
  empty: "You have no conversations yet.",
  emptyHelp: "Find someone you like and send them a message.",
  emptyAction: "Search members",
  selectChat: "Choose a conversation to read it.",
  you: "You:",
  photo: "Photo",
  gift: "Gift",
  unread: "{count} unread",
  delete: "Delete",
  deleteChat: "Delete the conversation with {name}",
  deleteConfirm: "Delete this conversation?",
  cancel: "Cancel",
  back: "Back",
  viewProfile: "View profile",
  credits: "Credits",
  olderHidden: "Older messages are hidden.",
  typing: "{name} is typing…",
  placeholder: "Write a message…",
  messageLabel: "Your message",
  counter: "{count} of {max} characters",
  send: "Send",
  sendPhoto: "Send a photo",
  sendGift: "Send a gift",
  sending: "Sending…",
  queued: "Waiting for a connection…",
  sent: "Sent",
  delivered: "Delivered",
  read: "Read",
  offline: "No connection. Your messages are sent as soon as the connection returns.",
  noCredits: "You do not have enough credits",
  buyCredits: "Buy credits",
  premiumRequired: "This feature is only available for premium members.",
  getPremium: "Get Premium",
  error: "An error has occurred.",
  close: "Close",
  icebreakerTitle: "Break the ice",
  icebreakerBody: "Start with one of these openers, or write your own.",
  icebreakerOwn: "Write my own",
  giftsTitle: "Send a gift",
  loading: "Loading…",
  noGifts: "There are no gifts right now.",
  closed: "This conversation is no longer available.",
  fictional: "Fictional profile",
  report: "Report",
  reportMessage: "Report this message",
  reportConversation: "Report {name}",
  reportReason: "Why are you reporting this?",
  reportChooseReason: "Choose a reason.",
  reportText: "What happened? (optional)",
  reportBlock: "Also block {name}",
  reportSend: "Send report",
  reportDone: "Thank you. We have received your report and will look into it.",
  safetyNotice: "Be careful: this new member's first message has contact details, a link or talk of money. Never send money or gift cards to someone you have not met.",
  safetyTipTitle: "Stay safe",
  safetyTip: "Keep the conversation on this site until you trust someone, never send money or gift cards, and report anyone who asks for them.",
  safetyTipDismiss: "Hide this tip",
};

/** apps.profiles.models.ComplaintReason (English). */
export const reportReasons: [string, string][] = [
  ["fake", "Fake profile"],
  ["harassment", "Harassment or insults"],
  ["scam", "Asks for money or is a scam"],
];

export const openers = [
  "Hi {name}! How is your day going?",
  "Hey {name}, your profile caught my eye. What are you looking for here?",
];

export const urls: ChatProps["urls"] = {
  chats: "/chats",
  chat: "/chats/{id}",
  profile: "/members/{id}",
  search: "/members",
  credits: "/credits",
  premium: "/premium",
  icons: "/static/chat/icons.svg",
};

/** The member's own profile id (sender of "mine" messages). */
export const ME = 7;
export const CONVERSATION = 5;
export const OTHER = 42;

export function chat(conversation: number, extra: Partial<ChatSummary> = {}): ChatSummary {
  return {
    conversation,
    profile: 100 + conversation,
    name: `Member ${conversation}`,
    main_image: null,
    is_fictional: false,
    last_message: {
      id: conversation * 10,
      kind: "text",
      text: `Hello from ${conversation}`,
      gift_emoji: null,
      mine: false,
      created: "2025-03-12T10:00:00+00:00",
      read: false,
    },
    num_unread_messages: 0,
    updated: "2025-03-12T10:00:00+00:00",
    ...extra,
  };
}

export function message(id: number, extra: Partial<MessageData> = {}): MessageData {
  const mine = extra.mine ?? true;
  return {
    id,
    conversation: CONVERSATION,
    profile: mine ? ME : OTHER,
    mine,
    kind: "text",
    text: `Message ${id}`,
    photo: null,
    gift: null,
    created: "2025-03-12T11:00:00+00:00",
    delivered_at: null,
    read_at: null,
    ...extra,
  };
}

export function history(messages: MessageData[], extra: Partial<History> = {}): History {
  return {
    conversation: {
      id: CONVERSATION,
      profile: { id: OTHER, name: "Anna", main_image: { thumb_filename: "/media/anna-thumb.jpg", match_filename: "/media/anna.jpg" }, is_fictional: false },
      num_unread_messages: 0,
    },
    messages,
    has_older: false,
    ...extra,
  };
}

/** The island's props as apps/chat/views.py `_props` builds them. */
export function chatProps(extra: Partial<ChatProps> = {}): ChatProps {
  return {
    view: "conversation",
    chats: [chat(CONVERSATION, { profile: OTHER, name: "Anna" }), chat(3)],
    history: history([message(1, { mine: false, text: "Hi there" }), message(2, { text: "Hello Anna" })]),
    credits: 10,
    messageLength: 1000,
    costs: { text: 1, photo: 3, gift: 5 },
    costLabels: { text: "1 credit", photo: "3 credits", gift: "5 credits" },
    openers,
    openGifts: false,
    reportReasons,
    locale: "en-GB",
    urls,
    strings,
    ...extra,
  };
}

// --- API ---------------------------------------------------------------------------------

export function json(status: number, data: unknown): Response {
  return new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
}

export function apiError(status: number, code: string, text: string): Response {
  return json(status, { error: { code, message: text } });
}

export interface Call {
  method: string;
  path: string;
  params: Record<string, string>;
  body: unknown;
}

export type Handler = (call: Call) => Response | Promise<Response> | undefined;

/** Stubs the global fetch; `handler` answers (undefined: 404). Returns the recorded calls. */
export function fakeApi(handler: Handler): Call[] {
  const calls: Call[] = [];
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const url = new URL(String(input), "http://localhost");
    let body: unknown = init?.body;
    if (typeof body === "string") body = JSON.parse(body);
    const call: Call = {
      method: init?.method ?? "GET",
      path: url.pathname,
      params: Object.fromEntries(url.searchParams),
      body,
    };
    calls.push(call);
    return (await handler(call)) ?? apiError(404, "not_found", "Not found");
  });
  vi.stubGlobal("fetch", fetchMock);
  return calls;
}

/** A promise to resolve later (an answer that has not come yet). */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Each test's start: fake timers at a fixed time, nothing kept in sessionStorage, the API
 * client reset, and a logged-in member with 10 credits in the store. */
export function memberPage() {
  vi.useFakeTimers();
  vi.setSystemTime(new Date("2025-03-12T12:00:00Z"));
  sessionStorage.clear();
  resetApiConfig();
  configureApi({ reload: vi.fn() });
  appStore.set({ ...initialAppState(), user: { id: 1, credits: 10 } });
}

/** The texts and tick states of the messages shown, and the message POSTs made. */
export const texts = () => screen.queryAllByTestId("message-text").map((el) => el.textContent);
export const ticks = () => screen.queryAllByTestId("message-ticks").map((el) => el.getAttribute("data-state"));
export const posts = (calls: Call[]) => calls.filter((c) => c.method === "POST" && c.path === "/api/message.php");

/** Lets pending promises and due (fake) timers run. */
export async function settle(ms = 0) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
  await act(async () => {
    await vi.advanceTimersByTimeAsync(0);
  });
}

// --- Realtime ----------------------------------------------------------------------------

/** The page's connection (startRealtime) over a fake socket, already open. */
export function startFakeRealtime(): { realtime: Realtime; socket: FakeSocket } {
  FakeSocket.all = [];
  const realtime = startRealtime({
    url: "ws://localhost/ws/",
    createSocket: (url) => new FakeSocket(url),
    random: () => 1,
  });
  const socket = FakeSocket.all[FakeSocket.all.length - 1]!;
  socket.open();
  return { realtime, socket };
}
