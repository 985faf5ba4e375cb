/**
 * Web push in the page (spec §4 "Push permission", §7 POST /api/user.php?push=1 and the
 * worker messages NEW_PUSH_MESSAGE / NEW_PUSH_CLICK).
 *
 * - installPushMessageHandler(): the page's side of the worker's messages (every page). What
 *   a message does is lib/pushMessages.ts, imported when the first one arrives (most pages
 *   never get one); messages are handled in the order they came. A push the worker did not
 *   show as an OS notification (inPage: this page is in front) is shown in the page by
 *   lib/pushNotice.ts, imported only then.
 *
 * Whether the browser can do push and what it allows (pushSupported, pushPermission) is in
 * lib/pushSupport.ts, subscribing (subscribeToPush, syncPushState) in lib/pushSubscription.ts:
 * only a member's page code and the signup's push step use them.
 */
import type { AppState, Store } from "./store";

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
  let handling: Promise<unknown> = Promise.resolve();
  let handler: Promise<typeof import("./pushMessages")> | null = null;
  const onMessage = (event: MessageEvent) => {
    const data = event.data as { type?: unknown } | null;
    if (!data || typeof data !== "object" || (data.type !== PUSH_MESSAGE && data.type !== PUSH_CLICK)) return;
    handler ??= import("./pushMessages");
    const loaded = handler;
    const handled = handling.then(() => loaded).then(({ handlePushMessage }) => handlePushMessage(data, win, options));
    // The next message waits for this one, whatever became of it; a chunk that failed to load
    // still rejects unhandled, and lib/chunkReload.ts reloads the page (a new deployment).
    handling = handled.catch(() => undefined);
    void handled.catch((error: unknown) => Promise.reject(error));
  };
  container.addEventListener("message", onMessage);
  container.startMessages?.();
  return () => container.removeEventListener("message", onMessage);
}
