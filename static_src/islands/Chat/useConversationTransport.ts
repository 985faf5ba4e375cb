/**
 * How the conversation's messages come and go (docs/chat.md, "The live connection"): the
 * history from the page, live events (new messages, delivered and read ticks, the chat closed
 * by a block), a push that catches up, polling while the socket is down, and sending through
 * the outbox (lib/outbox.ts): each message has its client_id from the moment it is written,
 * waits while offline and goes out when the connection returns, so the server stores it once.
 * A hook of its own so that the view only shows messages and hands new ones over; what a
 * failed send means to the member (an alert, the text back in the box) stays with the view.
 *
 * The live connection's module is imported after the first render (lib/realtimeLater.ts):
 * until it is there (`realtime` undefined) the conversation counts as "connecting" (no
 * polling), and messages sent meanwhile go through the outbox as ever.
 */

import { ApiError, get, post } from "../../lib/api";
import { reloadChatsSoon, removeChat } from "../../lib/chats";
import { createOutbox, type Outbox, type OutboxItem, type SendResult } from "../../lib/outbox";
import { PUSH_MESSAGE_EVENT } from "../../lib/push";
import type { Realtime, RealtimeStatus } from "../../lib/realtime";
import { appStore } from "../../lib/store";
import { applyMarks, markState, mergeMessages, replaceHistory, type Marks } from "./format";
import { useCallback, useEffect, useRef, useState } from "./react";
import { API, type History, type MessageData, type ShownMessage } from "./types";

/** While the socket is down, the open conversation's history is fetched this often. */
export const HISTORY_POLL_MS = 7_000;
/** Queued messages are tried again this often, whatever the socket does. */
export const OUTBOX_RETRY_MS = 15_000;

/** A message on its way: what POST /api/message.php gets. */
export interface SendItem extends OutboxItem {
  kind: "text" | "photo" | "gift";
  text?: string;
  gift?: number;
  photo?: File;
  /** A photo's picture from the device, shown until the server's comes; freed if it fails. */
  preview?: string;
}

/** What the transport tells the view. */
export interface TransportListeners {
  /** Something of the other's is unread: a new message, or a history that counts some. */
  unread: () => void;
  /** A message of the other's came live. */
  incoming: () => void;
  /** A send the server refused (not for being offline): its message is gone from the list;
   * the view gives the text back and says why, unless `err` is null (the chat has closed:
   * its notice says it). */
  failed: (item: SendItem, err: unknown) => void;
}

/** The messages to show (the server's, then ours on their way); whether older ones are hidden;
 * whether the chat is closed (the other profile blocked or gone: nothing can be sent); whether
 * the browser is offline or a message waits in the outbox; and `send`, which shows an item as
 * ours at once (with `shown`, and a photo's picture from the device) and sends it through the
 * outbox. A tuple, like useState's: the names stay out of the page's bytes. */
export type Transport = [
  messages: ShownMessage[],
  hasOlder: boolean,
  closed: boolean,
  offline: boolean,
  send: (item: SendItem, shown?: Partial<ShownMessage>) => void,
];

function setStoreCredits(credits: unknown): void {
  if (typeof credits !== "number") return;
  appStore.set((state) => (state.user && state.user.credits !== credits ? { user: { ...state.user, credits } } : {}));
}

/** The connection's status; "connecting" while its module is being imported (undefined). */
const statusOf = (realtime: Realtime | null | undefined): RealtimeStatus =>
  realtime === undefined ? "connecting" : (realtime?.status ?? "down");

function useRealtimeStatus(realtime: Realtime | null | undefined): RealtimeStatus {
  const [status, setStatus] = useState(() => statusOf(realtime));
  useEffect(() => {
    setStatus(statusOf(realtime));
    return realtime?.onStatus(setStatus);
  }, [realtime]);
  return status;
}

function useOnline(): boolean {
  const [online, setOnline] = useState(() => navigator.onLine);
  useEffect(() => {
    const update = () => setOnline(navigator.onLine);
    window.addEventListener("online", update);
    window.addEventListener("offline", update);
    return () => {
      window.removeEventListener("online", update);
      window.removeEventListener("offline", update);
    };
  }, []);
  return online;
}

function isOffline(err: unknown): boolean {
  return !navigator.onLine || (err instanceof ApiError && (err.status === 0 || err.status >= 500));
}

/** The body of POST /api/message.php for `item`: a photo as multipart, else JSON, which
 * leaves out the text of a gift and the gift of a text (undefined). */
function messageBody(conversation: number, item: SendItem): FormData | Record<string, unknown> {
  if (item.photo) {
    const body = new FormData();
    body.append("conversation", String(conversation));
    body.append("client_id", item.clientId);
    body.append("photo", item.photo);
    return body;
  }
  return { conversation, client_id: item.clientId, text: item.text, gift: item.gift };
}

/** The conversation of `history` (the page's) over `realtime` (undefined while its module is
 * being imported, null without a connection). */
export function useConversationTransport(
  history: History,
  realtime: Realtime | null | undefined,
  listeners: TransportListeners,
): Transport {
  const conversation = history.conversation.id;
  const profile = history.conversation.profile.id;
  // The view's listeners as of the last render: the events below are followed once per
  // connection, not again at every render.
  const on = useRef(listeners);
  on.current = listeners;
  const status = useRealtimeStatus(realtime);
  const online = useOnline();

  const [messages, setMessages] = useState<ShownMessage[]>(() => mergeMessages([], history.messages));
  // Delivered and read as the socket reported them, for messages whose answer comes later.
  const marks = useRef<Marks>({ delivered: null, read: null });
  const [hasOlder, setHasOlder] = useState(history.has_older);
  const [closed, setClosed] = useState(false);
  const outboxRef = useRef<Outbox<SendItem> | null>(null);

  /** Adds the server's `message` (in place of ours on its way, by client_id). */
  const merge = (message: MessageData) =>
    setMessages((current) => applyMarks(mergeMessages(current, [message]), marks.current));
  /** Sets the `local` state of ours with `clientId` ("sending" only while it is on its way),
   * or drops it (undefined). */
  const setLocal = (clientId: string, local?: ShownMessage["local"]) =>
    setMessages((current) =>
      local
        ? current.map((message) => (message.client_id === clientId && (local === "queued" || message.local) ? { ...message, local } : message))
        : current.filter((message) => message.client_id !== clientId),
    );

  const loadHistory = useCallback(async (): Promise<void> => {
    try {
      const data = await get<History>(API.chat, { params: { conversation }, retries: 0 });
      setMessages((current) => applyMarks(replaceHistory(current, data.messages), marks.current));
      setHasOlder(data.has_older);
      setStoreCredits(data.credits);
      if (data.conversation.num_unread_messages) on.current.unread();
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) setClosed(true);
    }
  }, [conversation]);

  // --- Live events ------------------------------------------------------------------

  useEffect(() => {
    if (!realtime) return;
    const offs = [
      realtime.on("message.new", (event) => {
        const message = event.message as MessageData | undefined;
        if (!message) return;
        reloadChatsSoon();
        if (message.conversation !== conversation) return;
        merge(message);
        if (!message.mine) {
          on.current.incoming();
          on.current.unread();
        }
      }),
      ...(["delivered", "read"] as const).map((mark) =>
        realtime.on(mark, (event) => {
          if (event.conversation !== conversation) return;
          const upTo = Number(event.up_to) || 0;
          if (upTo > (marks.current[mark]?.upTo ?? 0)) marks.current[mark] = { upTo, at: String(event.at) };
          setMessages((current) => markState(current, mark, upTo || null, String(event.at)));
        }),
      ),
      realtime.on("chat.closed", (event) => {
        if (event.profile !== profile) return;
        setClosed(true);
        removeChat(conversation);
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [realtime, conversation, profile]);

  // A push (or a click on its notification while this conversation is open) catches up at
  // once, whatever the socket missed (lib/push.ts "push-message"). loadHistory never
  // rejects, so it is the listener and the timer below as it is.
  useEffect(() => {
    window.addEventListener(PUSH_MESSAGE_EVENT, loadHistory);
    return () => window.removeEventListener(PUSH_MESSAGE_EVENT, loadHistory);
  }, [loadHistory]);

  // While the socket is down the history is polled; when it comes back, once to catch up.
  const wasDown = useRef(false);
  useEffect(() => {
    if (status === "open") {
      if (wasDown.current) void loadHistory();
      wasDown.current = false;
      return;
    }
    if (status === "down") wasDown.current = true;
    if (status === "connecting" && realtime !== null) return;
    const timer = setInterval(loadHistory, HISTORY_POLL_MS);
    return () => clearInterval(timer);
  }, [status, realtime, loadHistory]);

  // --- Sending ----------------------------------------------------------------------

  const deliver = async (item: SendItem): Promise<SendResult> => {
    const body = messageBody(conversation, item);
    setLocal(item.clientId, "sending");
    try {
      const data = await post<{ message: MessageData; credits: number }>(API.message, body, { retries: 0 });
      merge(data.message);
      setStoreCredits(data.credits);
      reloadChatsSoon();
      return "sent";
    } catch (err) {
      if (isOffline(err)) {
        setLocal(item.clientId, "queued");
        return "offline";
      }
      setLocal(item.clientId);
      if (item.preview) URL.revokeObjectURL?.(item.preview);
      const gone = err instanceof ApiError && (err.code === "profile_not_available" || err.code === "conversation_not_found");
      if (gone) setClosed(true);
      on.current.failed(item, gone ? null : err);
      return "failed";
    }
  };

  const deliverRef = useRef(deliver);
  deliverRef.current = deliver;
  // One outbox for the conversation's life: the connection may arrive after a message is queued.
  useEffect(() => {
    const outbox = createOutbox<SendItem>({
      send: (item) => deliverRef.current(item),
      retryMs: OUTBOX_RETRY_MS,
    });
    outboxRef.current = outbox;
    return () => {
      outbox.dispose();
      if (outboxRef.current === outbox) outboxRef.current = null;
    };
  }, []);
  // The connection open (when it arrives, or back): what waits is sent.
  useEffect(() => (realtime ? outboxRef.current?.follow(realtime) : undefined), [realtime]);

  const send = (item: SendItem, shown?: Partial<ShownMessage>) => {
    if (item.photo) {
      try {
        item.preview = URL.createObjectURL(item.photo);
      } catch {
        // No picture from the device: the bubble waits for the server's.
      }
    }
    const pending: ShownMessage = {
      id: 0,
      conversation,
      profile: 0,
      mine: true,
      kind: item.kind,
      text: "",
      photo: null,
      gift: null,
      created: new Date().toISOString(),
      delivered_at: null,
      read_at: null,
      client_id: item.clientId,
      local: "sending",
      previewUrl: item.preview,
      ...shown,
    };
    setMessages((current) => [...current, pending]);
    void outboxRef.current?.add(item);
  };

  const offline = !online || messages.some((message) => message.local === "queued");
  return [messages, hasOlder, closed, offline, send];
}
