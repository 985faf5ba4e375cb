/**
 * Whether this browser can do web push (service workers, PushManager and Notification all
 * exist) and what it allows. Used by the "enable push" alert and subscribing (a member's page
 * code, base/member.ts) and by the signup's push step; not by every page (lib/push.ts).
 */
import type { PushPermission } from "./store";

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
