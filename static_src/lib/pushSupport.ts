/**
 * Whether this browser can do web push (service workers, PushManager and Notification all
 * exist) and what it allows. Used by the "enable push" alert and subscribing (a member's page
 * code, base/member.ts) and by the signup's push step; not by every page (lib/push.ts).
 */
import { appStore, type AppState, type PushPermission, type Store } from "./store";

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

/** appStore.push's capable, permission and subscribed (untouched when they are the same). */
export function setPushState(permission: PushPermission, subscribed: boolean, store: Store<AppState> = appStore): void {
  store.set((state) => {
    const capable = permission !== "unsupported";
    const push = state.push;
    if (push.capable === capable && push.permission === permission && push.subscribed === subscribed) return {};
    return { push: { ...push, capable, permission, subscribed } };
  });
}
