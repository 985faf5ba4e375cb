/**
 * The page's one live connection (issue 7, docs/chat.md "WebSocket /ws/").
 *
 * - One WebSocket per page to `/ws/` on the page's own host (wss on https), opened by the
 *   base entry for logged-in members.
 * - Reconnects with exponential backoff and full jitter (1 s, 2 s, 4 s ... capped at 30 s),
 *   at once when the browser comes back online or the page becomes visible again.
 * - Heartbeat: a "ping" every 25 s; when nothing (not even the "pong") arrives within 10 s
 *   the socket is taken for dead, closed and reopened.
 * - Events from the server ({type: "message.new" | "typing" | "delivered" | "read" | "like" |
 *   "match" | "badges" | "chat.closed" ...}) go to the listeners registered with `on()`;
 *   "badges" also updates appStore (top-bar counts, title, app badge, credits), and a
 *   received "message.new" is acknowledged as delivered.
 * - `status` is "connecting", "open" or "down"; islands poll (spec §9) while it is not open.
 *
 * The outbox (createOutbox, lib/outbox.ts) holds messages written while offline and sends
 * them when the connection returns. Each keeps its client_id, so a resend is stored once.
 *
 * The chat loads this module with import() after its first render (lib/realtimeLater.ts), and
 * the member code (base/member.ts) with import() too: no page has it in its initial modules,
 * and it is one file of its own wherever it is loaded.
 */
import { appStore, isObject, type AppState, type Store } from "./store";

export type RealtimeStatus = "connecting" | "open" | "down";

export interface RealtimeEvent {
  type: string;
  [key: string]: unknown;
}

export type EventListener = (event: RealtimeEvent) => void;
export type StatusListener = (status: RealtimeStatus) => void;

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_MAX_MS = 30_000;
export const PING_INTERVAL_MS = 25_000;
export const PONG_TIMEOUT_MS = 10_000;

/** Delay before reconnect attempt `attempt` (0-based): full jitter over [base·2^n / 2, base·2^n], capped. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/** ws://host/ws/ or wss://host/ws/ for the page's location. */
export function socketUrl(location: Pick<Location, "protocol" | "host"> = window.location, path = "/ws/"): string {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}${path}`;
}

interface SocketLike {
  readyState: number;
  onopen: ((ev: Event) => unknown) | null;
  onclose: ((ev: CloseEvent) => unknown) | null;
  onerror: ((ev: Event) => unknown) | null;
  onmessage: ((ev: MessageEvent) => unknown) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type SocketFactory = (url: string) => SocketLike;

export interface RealtimeOptions {
  url?: string;
  createSocket?: SocketFactory;
  random?: () => number;
  store?: Store<AppState>;
  win?: Window;
  doc?: Document;
}

export interface Realtime {
  readonly status: RealtimeStatus;
  /** Listen to one event type, or "*" for all; returns the unsubscribe function. */
  on(type: string, listener: EventListener): () => void;
  onStatus(listener: StatusListener): () => void;
  /** Send a frame when the socket is open; false otherwise (nothing is queued). */
  send(frame: RealtimeEvent): boolean;
  /** Stop for good (tests, logout). */
  close(): void;
}

const OPEN = 1;

/** Copies a "badges" event into the store: totals (title, app badge, top bar) and the credits. */
export function applyBadges(event: RealtimeEvent, store: Store<AppState> = appStore): void {
  store.set((state) => {
    const out: Partial<AppState> = {};
    const unread = Number(event.unreadMessages);
    const likes = Number(event.newLikes);
    const totals = {
      unreadMessages: Number.isFinite(unread) && unread >= 0 ? Math.floor(unread) : state.totals.unreadMessages,
      newLikes: Number.isFinite(likes) && likes >= 0 ? Math.floor(likes) : state.totals.newLikes,
    };
    if (totals.unreadMessages !== state.totals.unreadMessages || totals.newLikes !== state.totals.newLikes) {
      out.totals = totals;
    }
    if (typeof event.credits === "number" && state.user && state.user.credits !== event.credits) {
      out.user = { ...state.user, credits: event.credits };
    }
    return out;
  });
}

export function createRealtime(options: RealtimeOptions = {}): Realtime {
  const win = options.win ?? window;
  const doc = options.doc ?? document;
  const store = options.store ?? appStore;
  const random = options.random ?? Math.random;
  const url = options.url ?? socketUrl(win.location);
  const createSocket: SocketFactory = options.createSocket ?? ((u) => new WebSocket(u) as unknown as SocketLike);

  const listeners = new Map<string, Set<EventListener>>();
  const statusListeners = new Set<StatusListener>();
  let status: RealtimeStatus = "connecting";
  let socket: SocketLike | null = null;
  let attempt = 0;
  let stopped = false;
  let reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  let pingTimer: ReturnType<typeof setInterval> | null = null;
  let pongTimer: ReturnType<typeof setTimeout> | null = null;

  const setStatus = (next: RealtimeStatus) => {
    if (next === status) return;
    status = next;
    for (const listener of [...statusListeners]) listener(next);
  };

  const sendFrame = (frame: RealtimeEvent): boolean => {
    if (!socket || socket.readyState !== OPEN) return false;
    try {
      socket.send(JSON.stringify(frame));
      return true;
    } catch {
      return false;
    }
  };

  const emit = (event: RealtimeEvent) => {
    if (event.type === "badges") applyBadges(event, store);
    // This device received the other's message: the sender sees it delivered.
    const message = event.message;
    if (event.type === "message.new" && isObject(message) && message.mine === false) {
      sendFrame({ type: "delivered", conversation: message.conversation, up_to: message.id });
    }
    for (const key of [event.type, "*"]) {
      for (const listener of [...(listeners.get(key) ?? [])]) {
        try {
          listener(event);
        } catch (err) {
          console.error("realtime listener failed", err);
        }
      }
    }
  };

  const clearHeartbeat = () => {
    if (pingTimer !== null) clearInterval(pingTimer);
    if (pongTimer !== null) clearTimeout(pongTimer);
    pingTimer = pongTimer = null;
  };

  const scheduleReconnect = () => {
    if (stopped || reconnectTimer !== null) return;
    const delay = backoffDelay(attempt, random);
    attempt += 1;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      connect();
    }, delay);
  };

  const dropped = (current: SocketLike) => {
    if (socket !== current) return;
    socket = null;
    clearHeartbeat();
    setStatus("down");
    scheduleReconnect();
  };

  const heartbeat = (current: SocketLike) => {
    clearHeartbeat();
    pingTimer = setInterval(() => {
      if (socket !== current || current.readyState !== OPEN) return;
      try {
        current.send(JSON.stringify({ type: "ping" }));
      } catch {
        return;
      }
      if (pongTimer === null) {
        pongTimer = setTimeout(() => {
          // Nothing came back: the connection is dead even if the browser has not noticed.
          try {
            current.close(4000, "heartbeat");
          } catch {
            // already closing
          }
          dropped(current);
        }, PONG_TIMEOUT_MS);
      }
    }, PING_INTERVAL_MS);
  };

  function connect() {
    if (stopped || socket) return;
    if (reconnectTimer !== null) {
      clearTimeout(reconnectTimer);
      reconnectTimer = null;
    }
    let current: SocketLike;
    try {
      current = createSocket(url);
    } catch {
      setStatus("down");
      scheduleReconnect();
      return;
    }
    socket = current;
    if (status !== "down") setStatus("connecting");
    current.onopen = () => {
      if (socket !== current) return;
      attempt = 0;
      setStatus("open");
      heartbeat(current);
    };
    current.onmessage = (ev: MessageEvent) => {
      if (socket !== current) return;
      if (pongTimer !== null) {
        clearTimeout(pongTimer);
        pongTimer = null;
      }
      let data: unknown;
      try {
        data = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      if (!isObject(data) || typeof data.type !== "string" || data.type === "pong") return;
      emit(data as RealtimeEvent);
    };
    current.onerror = () => {
      // onclose follows; nothing else to do.
    };
    current.onclose = () => dropped(current);
  }

  const reconnectNow = () => {
    if (stopped || socket) return;
    attempt = 0;
    if (reconnectTimer !== null) {
      clearTimeout(reconnectTimer);
      reconnectTimer = null;
    }
    connect();
  };
  const onVisible = () => {
    if (doc.visibilityState === "visible") reconnectNow();
  };
  win.addEventListener("online", reconnectNow);
  doc.addEventListener("visibilitychange", onVisible);

  connect();

  return {
    get status() {
      return status;
    },
    on(type, listener) {
      let set = listeners.get(type);
      if (!set) listeners.set(type, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
      };
    },
    onStatus(listener) {
      statusListeners.add(listener);
      return () => {
        statusListeners.delete(listener);
      };
    },
    send: sendFrame,
    close() {
      stopped = true;
      clearHeartbeat();
      if (reconnectTimer !== null) clearTimeout(reconnectTimer);
      win.removeEventListener("online", reconnectNow);
      doc.removeEventListener("visibilitychange", onVisible);
      const current = socket;
      socket = null;
      current?.close(1000, "bye");
      setStatus("down");
    },
  };
}

// ---------------------------------------------------------------------------------------
// The page's connection
// ---------------------------------------------------------------------------------------

let pageRealtime: Realtime | null = null;

/** Opens the page's connection once (the base entry, for a logged-in member). */
export function startRealtime(options: RealtimeOptions = {}): Realtime {
  if (!pageRealtime) pageRealtime = createRealtime(options);
  return pageRealtime;
}

/** The page's connection, or null when there is none (visitors, tests). */
export function getRealtime(): Realtime | null {
  return pageRealtime;
}

/** Tests: forget (and close) the page's connection. */
export function resetRealtime(): void {
  pageRealtime?.close();
  pageRealtime = null;
}
