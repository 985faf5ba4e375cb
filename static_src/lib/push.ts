/**
 * Web push in the page (spec §4 "Push permission", §7 POST /api/user.php?push=1 and the
 * worker messages NEW_PUSH_MESSAGE / NEW_PUSH_CLICK).
 *
 * - pushSupported(): service workers, PushManager and Notification all exist.
 * - subscribeToPush(): asks for permission (first, while the click still counts as a user
 *   gesture), registers the worker at /sw.js, subscribes with the site's VAPID public key
 *   and stores the subscription on the server; appStore.push follows.
 * - currentPushSubscription() / syncPushState(): whether this browser is subscribed
 *   already, without asking for anything and without registering a worker; the base
 *   entry fills appStore.push with it on every page (the refresh interval depends on it).
 * - installPushMessageHandler(): the page's side of the worker's messages.
 */
import { post } from "./api";
import {
  appStore,
  PUSH_LAST_MESSAGE_KEY,
  type AppState,
  type PushLastMessage,
  type PushPermission,
  type Store,
} from "./store";

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

export function pushSupported(win: Window = window): boolean {
  const nav = win.navigator as Navigator | undefined;
  return (
    !!nav &&
    "serviceWorker" in nav &&
    !!nav.serviceWorker &&
    "PushManager" in win &&
    "Notification" in win
  );
}

export function pushPermission(win: Window = window): PushPermission {
  if (!pushSupported(win)) return "unsupported";
  const permission = (win as Window & { Notification: typeof Notification }).Notification.permission;
  return permission === "default" ? "unknown" : permission;
}

/** The VAPID key as the bytes PushManager.subscribe wants (it is URL-safe base64). */
export function urlBase64ToUint8Array(base64: string): Uint8Array<ArrayBuffer> {
  const padded = base64.trim() + "=".repeat((4 - (base64.trim().length % 4)) % 4);
  const raw = atob(padded.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

export type PushResult = "subscribed" | "denied" | "unsupported" | "failed";

export interface SubscribeOptions {
  /** The VAPID public key (settings push_public_key). */
  publicKey: string;
  serviceWorkerUrl?: string;
  saveUrl?: string;
}

function setPushState(permission: PushPermission, subscribed: boolean, store: Store<AppState> = appStore): void {
  store.set((state) => {
    const capable = permission !== "unsupported";
    const push = state.push;
    if (push.capable === capable && push.permission === permission && push.subscribed === subscribed) return {};
    return { push: { ...push, capable, permission, subscribed } };
  });
}

/**
 * The push subscription this browser holds for the site, or null. Only looks: no
 * permission prompt, and no worker is registered when there is none.
 */
export async function currentPushSubscription(win: Window = window): Promise<PushSubscription | null> {
  if (!pushSupported(win)) return null;
  try {
    const registration = await win.navigator.serviceWorker.getRegistration("/");
    if (!registration?.pushManager) return null;
    return (await registration.pushManager.getSubscription()) ?? null;
  } catch {
    return null;
  }
}

/**
 * appStore.push from what the browser knows: capable, the permission, and subscribed
 * (a subscription exists and notifications are allowed). Returns `subscribed`.
 */
export async function syncPushState(win: Window = window, store: Store<AppState> = appStore): Promise<boolean> {
  const permission = pushPermission(win);
  const subscribed = permission === "granted" && (await currentPushSubscription(win)) !== null;
  setPushState(permission, subscribed, store);
  return subscribed;
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

/** Must be called from a click handler: browsers only ask for permission on a user gesture. */
export async function subscribeToPush({
  publicKey,
  serviceWorkerUrl = "/sw.js",
  saveUrl = "/api/user.php?push=1",
}: SubscribeOptions): Promise<PushResult> {
  if (!pushSupported() || !publicKey) return "unsupported";
  try {
    const permission = await Notification.requestPermission();
    if (permission !== "granted") {
      setPushState(permission === "denied" ? "denied" : "unknown", false);
      return "denied";
    }
    await navigator.serviceWorker.register(serviceWorkerUrl, { scope: "/" });
    const registration = await navigator.serviceWorker.ready;
    const subscription =
      (await registration.pushManager.getSubscription()) ??
      (await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: urlBase64ToUint8Array(publicKey),
      }));
    await post(saveUrl, { subscription: subscription.toJSON() }, { retries: 2 });
    setPushState("granted", true);
    return "subscribed";
  } catch (err) {
    console.error("Push subscription failed", err);
    return "failed";
  }
}

/** Whether `url` is on this site; the worker only ever asks for same-origin pages. */
function sameOriginUrl(url: unknown, win: Window): URL | null {
  if (typeof url !== "string" || !url) return null;
  try {
    const parsed = new URL(url, win.location.href);
    return parsed.origin === win.location.origin ? parsed : null;
  } catch {
    return null;
  }
}

/** The page part of a URL ("origin/path?query", no hash): what "the same page" compares. */
function pageOf(url: URL): string {
  return `${url.origin}${url.pathname}${url.search}`;
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
 *   the counts, the chats and the likes refresh at once.
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
    const data = event.data as { type?: unknown; payload?: unknown; openUrl?: unknown; checkUrl?: unknown } | null;
    if (!data || typeof data !== "object") return;
    if (data.type === PUSH_MESSAGE) {
      rememberPushMessage(data.payload, store, Date.now(), options.storage);
      win.dispatchEvent(new CustomEvent(PUSH_MESSAGE_EVENT, { detail: data.payload ?? null }));
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
