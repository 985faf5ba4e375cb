/**
 * What the worker's messages do in the page (lib/push.ts installPushMessageHandler, which
 * imports this module when the first message arrives):
 * - NEW_PUSH_MESSAGE: remembers {id, kind, at} (appStore.push.lastMessage and
 *   sessionStorage) and re-dispatches the payload as a window "push-message" event, so
 *   the counts, the chats and the likes refresh at once. With inPage (no OS notification)
 *   lib/pushNotice.ts shows it in the page, unless it is the last message remembered
 *   before (a redelivery, or a reload since) or this page is its page.
 * - NEW_PUSH_CLICK with checkUrl (or openUrl): when this page is that page (path and
 *   query), the same "push-message" event refreshes it, without loading it again;
 *   otherwise the tab goes there. Only pages of this site.
 */
import { PUSH_CLICK, PUSH_MESSAGE, PUSH_MESSAGE_EVENT, type PushMessageHandlerOptions } from "./push";
import { pageOf, sameOriginUrl } from "./sitePage";
import { appStore, PUSH_LAST_MESSAGE_KEY, type AppState, type PushLastMessage, type Store } from "./store";

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

/** Handles one message of the worker (`data`, an object with its type). */
export function handlePushMessage(
  data: { type?: unknown; payload?: unknown; inPage?: unknown; openUrl?: unknown; checkUrl?: unknown },
  win: Window = window,
  options: PushMessageHandlerOptions = {},
): void {
  const store = options.store ?? appStore;
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
}
