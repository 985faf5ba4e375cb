/**
 * The push service worker's logic (spec §4 "App badge", §7 worker messages).
 *
 * Every push carries one JSON notice from the server (apps.notifications):
 *
 *   {"id": "<notice id>", "kind": "new_messages" | "new_conversations" | "like" | ...,
 *    "title": "...", "body": "...",
 *    "url": "/chats/12",        the page to open (openUrl)
 *    "checkUrl": "/chats/12",   optional: a window already there is focused and refreshed
 *    "tag": "chat-12",          a newer notice with the same tag replaces the older one
 *    "icon": "/icons/icon-192.png?v=..", "badgeIcon": "/icons/badge-96.png?v=..",
 *    "badge": 4}                unread messages + new likes (the app badge)
 *
 * - push: shows the notification (renotify when it replaces one with the same tag), sets
 *   the app badge (cleared at 0) where supported, then posts
 *   {type: "NEW_PUSH_MESSAGE", payload, inPage} to every window of the site. When a window
 *   of the site is focused and visible, in Chromium (pageShowsPush), there is no OS
 *   notification (inPage: true): that page shows the push as an in-page notice
 *   (lib/pushNotice.ts), so the two never double up. inPage is true as well when showing
 *   the notification failed.
 * - notificationclick: closes it; a window already at checkUrl (path and query) is
 *   focused and told {type: "NEW_PUSH_CLICK", checkUrl} (it refreshes itself); else a
 *   window of the site is told {type: "NEW_PUSH_CLICK", openUrl} (it goes there) and
 *   focused; with no window, one is opened at openUrl.
 *
 * Whatever arrives is checked: addresses of other origins never leave the site (openUrl
 * becomes the home page, a foreign checkUrl or icon is dropped), numbers are checked.
 *
 * Written against the small interfaces below instead of the WebWorker typings, which
 * clash with the DOM typings the rest of static_src uses; sw.ts passes the real `self`.
 */

export const PUSH_MESSAGE = "NEW_PUSH_MESSAGE";
export const PUSH_CLICK = "NEW_PUSH_CLICK";

export interface PushPayload {
  id: string;
  kind: string;
  title: string;
  body: string;
  /** openUrl: absolute, on this site. */
  url: string;
  /** Absolute, on this site. */
  checkUrl?: string;
  tag?: string;
  icon?: string;
  badgeIcon?: string;
  /** Unread messages + new likes (a whole number >= 0). */
  badge?: number;
}

/** What a notification keeps for its click. */
export interface NotificationData {
  url: string;
  checkUrl?: string;
  id: string;
  kind: string;
}

export interface SwClient {
  url: string;
  focused?: boolean;
  visibilityState?: string;
  postMessage(message: unknown): void;
  focus?(): Promise<unknown>;
}

export interface SwNotification {
  data?: unknown;
  close(): void;
}

export interface SwNavigator {
  /** Chromium's User-Agent Client Hints (none in Firefox and Safari). */
  userAgentData?: unknown;
  setAppBadge?(contents?: number): Promise<void>;
  clearAppBadge?(): Promise<void>;
}

export interface SwScope {
  location: { origin: string; hostname: string };
  navigator?: SwNavigator;
  registration: { showNotification(title: string, options?: Record<string, unknown>): Promise<void> };
  clients: {
    matchAll(options: { type: "window"; includeUncontrolled: boolean }): Promise<readonly SwClient[]>;
    openWindow(url: string): Promise<unknown>;
    claim(): Promise<void>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: string, listener: (event: never) => void): void;
}

interface ExtendableEventLike {
  waitUntil(promise: Promise<unknown>): void;
}

interface PushEventLike extends ExtendableEventLike {
  data: { json(): unknown; text(): string } | null;
}

interface NotificationEventLike extends ExtendableEventLike {
  notification: SwNotification;
}

/** `url` made absolute when it is on this site, else null. */
export function sameOriginUrl(scope: Pick<SwScope, "location">, url: unknown): string | null {
  if (typeof url !== "string" || !url) return null;
  try {
    const parsed = new URL(url, `${scope.location.origin}/`);
    return parsed.origin === scope.location.origin ? parsed.href : null;
  } catch {
    return null;
  }
}

/** A same-origin absolute URL for `url`, or the site's home page. */
export function siteUrl(scope: Pick<SwScope, "location">, url: unknown): string {
  return sameOriginUrl(scope, url) ?? `${scope.location.origin}/`;
}

/** "/chats/12?x=1" of an absolute URL: what "the same page" compares (no hash). */
export function pageOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

function badgeCount(value: unknown): number | undefined {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n) || n < 0) return undefined;
  return Math.floor(n);
}

/** The payload of a push, whatever the server sent (JSON, plain text or nothing). */
export function parsePush(scope: Pick<SwScope, "location">, data: PushEventLike["data"]): PushPayload {
  let raw: unknown = null;
  if (data) {
    try {
      raw = data.json();
    } catch {
      try {
        raw = { body: data.text() };
      } catch {
        raw = null;
      }
    }
  }
  const value = typeof raw === "object" && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const text = (key: string) => (typeof value[key] === "string" ? (value[key] as string) : "");
  const id = typeof value.id === "number" && Number.isFinite(value.id) ? String(value.id) : text("id");
  const payload: PushPayload = {
    id,
    kind: text("kind"),
    title: text("title") || scope.location.hostname,
    body: text("body"),
    url: siteUrl(scope, value.url),
  };
  const checkUrl = sameOriginUrl(scope, value.checkUrl);
  if (checkUrl) payload.checkUrl = checkUrl;
  if (text("tag")) payload.tag = text("tag");
  const icon = sameOriginUrl(scope, value.icon);
  if (icon) payload.icon = icon;
  const badgeIcon = sameOriginUrl(scope, value.badgeIcon);
  if (badgeIcon) payload.badgeIcon = badgeIcon;
  const badge = badgeCount(value.badge);
  if (badge !== undefined) payload.badge = badge;
  return payload;
}

/** The windows of this site (uncontrolled ones too: a page opened before the worker). */
async function windows(scope: SwScope): Promise<SwClient[]> {
  const all = await scope.clients.matchAll({ type: "window", includeUncontrolled: true });
  return all.filter((client) => sameOriginUrl(scope, client.url) !== null);
}

/** The app badge where the device has one; failures (not installed, refused) are silent. */
export async function setBadge(scope: SwScope, count: number | undefined): Promise<void> {
  if (count === undefined) return;
  const nav = scope.navigator;
  try {
    if (count > 0 && typeof nav?.setAppBadge === "function") {
      await nav.setAppBadge(count);
    } else if (count === 0) {
      if (typeof nav?.clearAppBadge === "function") await nav.clearAppBadge();
      else if (typeof nav?.setAppBadge === "function") await nav.setAppBadge(0);
    }
  } catch {
    // Unsupported or refused: silent (spec §8).
  }
}

/**
 * Whether the page shows this push instead of the OS (no registration.showNotification): a
 * window of the site is focused and visible (the member is looking at the site: that page
 * shows an in-page notice, lib/pushNotice.ts), and the browser is Chromium.
 *
 * Subscriptions are userVisibleOnly. Chromium does not require a notification while the
 * origin has a visible tab: PushMessagingNotificationManager::DidCountVisibleNotifications
 * (chrome/browser/push_messaging/push_messaging_notification_manager.cc) sets
 * notification_needed = false when, for any browser window, IsTabVisible() holds: its active
 * tab is not hidden (minimized) and its visible URL has the push's origin. A focused and
 * visible window client is such an active, visible tab. (Were the member to leave the tab
 * before the push event ends, Chromium counts one silent push against the origin's budget,
 * and only shows its generic "updated in the background" notification once that is spent.)
 * Safari counts every push without a notification, even with the site in front, and revokes
 * the subscription after a few (WebKit, WWDC 2022 "Meet Web Push"); Firefox limits them with
 * a quota that visits refresh (its own rule, not relied on here). So only Chromium, told apart
 * by its User-Agent Client Hints (navigator.userAgentData, which Firefox and Safari lack),
 * leaves the notification out.
 */
export function pageShowsPush(scope: Pick<SwScope, "navigator">, open: readonly SwClient[]): boolean {
  if (!scope.navigator?.userAgentData) return false;
  return open.some((client) => client.focused === true && client.visibilityState === "visible");
}

export async function handlePush(scope: SwScope, payload: PushPayload): Promise<void> {
  const open = await windows(scope);
  let inPage = true;
  if (!pageShowsPush(scope, open)) {
    const data: NotificationData = { url: payload.url, id: payload.id, kind: payload.kind };
    if (payload.checkUrl) data.checkUrl = payload.checkUrl;
    try {
      await scope.registration.showNotification(payload.title, {
        body: payload.body,
        data,
        ...(payload.tag ? { tag: payload.tag, renotify: true } : {}),
        ...(payload.icon ? { icon: payload.icon } : {}),
        ...(payload.badgeIcon ? { badge: payload.badgeIcon } : {}),
      });
      inPage = false;
    } catch (err) {
      // Permission withdrawn meanwhile: the badge and the open pages still follow.
      console.error("showNotification failed", err);
    }
  }
  await setBadge(scope, payload.badge);
  // inPage: no OS notification shows this push; the focused page shows it.
  for (const client of open) {
    client.postMessage({ type: PUSH_MESSAGE, payload, inPage });
  }
}

async function focus(client: SwClient): Promise<void> {
  try {
    await client.focus?.();
  } catch {
    // Not allowed (no click to focus for): the message is what matters.
  }
}

/** The window that shows a click best: the focused one, else a visible one, else any. */
function bestWindow(open: SwClient[]): SwClient | undefined {
  return open.find((c) => c.focused) ?? open.find((c) => c.visibilityState === "visible") ?? open[0];
}

export async function handleNotificationClick(scope: SwScope, notification: SwNotification): Promise<void> {
  notification.close();
  const data = (notification.data ?? {}) as { url?: unknown; checkUrl?: unknown };
  const openUrl = siteUrl(scope, data.url);
  const checkUrl = sameOriginUrl(scope, data.checkUrl);
  const open = await windows(scope);

  // A window already on the page: it refreshes instead of loading it again.
  const there = checkUrl ? open.find((c) => pageOf(c.url) === pageOf(checkUrl)) : undefined;
  if (there && checkUrl) {
    there.postMessage({ type: PUSH_CLICK, checkUrl });
    await focus(there);
    return;
  }
  // Else a window of the site goes there (one already there refreshes itself).
  const client = open.find((c) => c.url === openUrl) ?? bestWindow(open);
  if (client) {
    client.postMessage({ type: PUSH_CLICK, openUrl });
    await focus(client);
    return;
  }
  try {
    await scope.clients.openWindow(openUrl);
  } catch {
    // Not allowed: nothing more to do.
  }
}

/** event.waitUntil, which throws for an event the page built itself (not trusted). */
function keepAlive(event: ExtendableEventLike, work: Promise<unknown>): void {
  try {
    event.waitUntil(work);
  } catch {
    // Untrusted event: the work runs anyway.
  }
}

export function installServiceWorker(scope: SwScope): void {
  scope.addEventListener("install", () => {
    void scope.skipWaiting();
  });
  scope.addEventListener("activate", (event: ExtendableEventLike) => {
    event.waitUntil(scope.clients.claim());
  });
  scope.addEventListener("push", (event: PushEventLike) => {
    keepAlive(event, handlePush(scope, parsePush(scope, event.data)));
  });
  scope.addEventListener("notificationclick", (event: NotificationEventLike) => {
    keepAlive(event, handleNotificationClick(scope, event.notification));
  });
}
