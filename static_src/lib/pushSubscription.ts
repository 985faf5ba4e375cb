/**
 * Subscribing to web push (spec §4 "Push permission", §7 POST /api/user.php?push=1), for a
 * member's page code (base/member.ts, base/enablePush.ts) and the signup's push step; the
 * page side of the worker's messages, on every page, is lib/push.ts.
 *
 * - subscribeToPush(): asks for permission (first, while the click still counts as a user
 *   gesture), registers the worker at /sw.js, subscribes with the site's VAPID public key
 *   and stores the subscription on the server; appStore.push follows.
 * - currentPushSubscription() / syncPushState(): whether this browser is subscribed
 *   already, without asking for anything and without registering a worker; a member's page
 *   fills appStore.push with it on load (the refresh interval depends on it).
 */
import { post } from "./api";
import { pushPermission, pushSupported } from "./pushSupport";
import { appStore, type AppState, type PushPermission, type Store } from "./store";

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
