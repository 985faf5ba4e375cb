/**
 * Web push in the page (spec §4 "Push permission", §7 POST /api/user.php?push=1 and the
 * worker messages NEW_PUSH_MESSAGE / NEW_PUSH_CLICK).
 *
 * - pushSupported(): service workers, PushManager and Notification all exist.
 * - subscribeToPush(): asks for permission (first, while the click still counts as a user
 *   gesture), registers the worker at /sw.js, subscribes with the site's VAPID public key
 *   and stores the subscription on the server; appStore.push follows.
 * - installPushMessageHandler(): the page's side of the worker's messages.
 */
import { post } from "./api";
import { appStore, type PushPermission } from "./store";

export const PUSH_MESSAGE = "NEW_PUSH_MESSAGE";
export const PUSH_CLICK = "NEW_PUSH_CLICK";
/** Window event the page dispatches for NEW_PUSH_MESSAGE; detail is the push payload. */
export const PUSH_MESSAGE_EVENT = "push-message";

export interface PushPayload {
  title?: string;
  body?: string;
  url?: string;
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

function setPushState(permission: PushPermission, subscribed: boolean): void {
  appStore.set((state) => ({ push: { ...state.push, capable: permission !== "unsupported", permission, subscribed } }));
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

/**
 * Listens to the worker: NEW_PUSH_MESSAGE re-dispatches the payload as a window
 * "push-message" event (islands refresh what they show); NEW_PUSH_CLICK with openUrl goes
 * to that page unless it is already open. Returns the function that stops listening.
 */
export function installPushMessageHandler(win: Window = window): () => void {
  const container = win.navigator?.serviceWorker;
  if (!container) return () => {};
  const onMessage = (event: MessageEvent) => {
    const data = event.data as { type?: unknown; payload?: unknown; openUrl?: unknown } | null;
    if (!data || typeof data !== "object") return;
    if (data.type === PUSH_MESSAGE) {
      win.dispatchEvent(new CustomEvent(PUSH_MESSAGE_EVENT, { detail: data.payload ?? null }));
    } else if (data.type === PUSH_CLICK) {
      const target = sameOriginUrl(data.openUrl, win);
      if (target && target.href !== win.location.href) win.location.assign(target.href);
    }
  };
  container.addEventListener("message", onMessage);
  container.startMessages?.();
  return () => container.removeEventListener("message", onMessage);
}
