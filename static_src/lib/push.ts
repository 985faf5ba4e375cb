/**
 * Web push in the page (spec §4 "Push permission", §7 POST /api/user.php?push=1 and the
 * worker messages NEW_PUSH_MESSAGE / NEW_PUSH_CLICK).
 *
 * - installPushMessageHandler(): the page's side of the worker's messages (every page).
 *   A push the worker did not show as an OS notification (inPage: this page is in
 *   front) is shown in the page by lib/pushNotice.ts, imported only then.
 *
 * Whether the browser can do push and what it allows (pushSupported, pushPermission) is in
 * lib/pushSupport.ts, subscribing (subscribeToPush, syncPushState) in lib/pushSubscription.ts:
 * only a member's page code and the signup's push step use them.
 */
import { pageOf, sameOriginUrl } from "./sitePage";
import { appStore, PUSH_LAST_MESSAGE_KEY, type AppState, type PushLastMessage, type Store } from "./store";

export const PUSH_MESSAGE = "NEW_PUSH_MESSAGE";
export const PUSH_CLICK = "NEW_PUSH_CLICK";
/**
 * Window event the page dispatches for NEW_PUSH_MESSAGE (detail: the push payload) and for
 * a click on a notification of the page that is open (detail: {checkUrl} or {openUrl}):
 * whatever shows the member's chats, likes and badges refreshes at once (lib/refresh.ts,
 * the chat's conversation).
 */
export const PUSH_MESSAGE_EVENT = "push-message";

/** The payload the worker forwards (static_src/sw/handlers.ts PushPayload). */
export interface PushPayload {
  id?: string;
  kind?: string;
  title?: string;
  body?: string;
  url?: string;
  checkUrl?: string;
  tag?: string;
  badge?: number;
  [key: string]: unknown;
}

/** Keeps {id, kind, at} of a push as appStore.push.lastMessage and in sessionStorage. */
export function rememberPushMessage(
  payload: unknown,
  store: Store<AppState> = appStore,
  now: number = Date.now(),
  storage?: Storage,
): PushLastMessage {
  const value = typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>) : {};
  const lastMessage: PushLastMessage = {
    id: typeof value.id === "string" ? value.id : typeof value.id === "number" ? String(value.id) : "",
    kind: typeof value.kind === "string" ? value.kind : "",
    at: now,
  };
  store.set((state) => ({ push: { ...state.push, lastMessage } }));
  try {
    (storage ?? window.sessionStorage).setItem(PUSH_LAST_MESSAGE_KEY, JSON.stringify(lastMessage));
  } catch {
    // Storage blocked or full: the store still has it.
  }
  return lastMessage;
}

export interface PushMessageHandlerOptions {
  store?: Store<AppState>;
  /** Where rememberPushMessage keeps the last message (sessionStorage). */
  storage?: Storage;
}

/**
 * Listens to the worker:
 * - NEW_PUSH_MESSAGE: remembers {id, kind, at} (appStore.push.lastMessage and
 *   sessionStorage) and re-dispatches the payload as a window "push-message" event, so
 *   the counts, the chats and the likes refresh at once. With inPage (no OS notification)
 *   lib/pushNotice.ts shows it in the page, unless it is the last message remembered
 *   before (a redelivery, or a reload since) or this page is its page.
 * - NEW_PUSH_CLICK with checkUrl (or openUrl): when this page is that page (path and
 *   query), the same "push-message" event refreshes it, without loading it again;
 *   otherwise the tab goes there. Only pages of this site.
 * Returns the function that stops listening.
 */
export function installPushMessageHandler(win: Window = window, options: PushMessageHandlerOptions = {}): () => void {
  const container = win.navigator?.serviceWorker;
  if (!container) return () => {};
  const store = options.store ?? appStore;
  const onMessage = (event: MessageEvent) => {
    const data = event.data as {
      type?: unknown;
      payload?: unknown;
      inPage?: unknown;
      openUrl?: unknown;
      checkUrl?: unknown;
    } | null;
    if (!data || typeof data !== "object") return;
    if (data.type === PUSH_MESSAGE) {
      const before = store.get(); // its push.lastMessage: the one remembered before this one
      rememberPushMessage(data.payload, store, Date.now(), options.storage);
      win.dispatchEvent(new CustomEvent(PUSH_MESSAGE_EVENT, { detail: data.payload ?? null }));
      if (data.inPage) void import("./pushNotice").then((m) => m.default(data, before));
    } else if (data.type === PUSH_CLICK) {
      const target = sameOriginUrl(data.checkUrl, win) ?? sameOriginUrl(data.openUrl, win);
      if (!target) return;
      if (pageOf(target) === pageOf(new URL(win.location.href))) {
        const detail = sameOriginUrl(data.checkUrl, win) ? { checkUrl: target.href } : { openUrl: target.href };
        win.dispatchEvent(new CustomEvent(PUSH_MESSAGE_EVENT, { detail }));
      } else {
        win.location.assign(target.href);
      }
    }
  };
  container.addEventListener("message", onMessage);
  container.startMessages?.();
  return () => container.removeEventListener("message", onMessage);
}
