/**
 * The push service worker's logic (spec §7): a `push` shows a notification from the JSON
 * payload {title, body, url} and tells the open pages (NEW_PUSH_MESSAGE); a click on the
 * notification focuses a page of the site and tells it which page to open
 * (NEW_PUSH_CLICK with openUrl), or opens a new window there.
 *
 * Written against the small interfaces below instead of the WebWorker typings, which
 * clash with the DOM typings the rest of static_src uses; sw.ts passes the real `self`.
 */

export const PUSH_MESSAGE = "NEW_PUSH_MESSAGE";
export const PUSH_CLICK = "NEW_PUSH_CLICK";

export interface PushPayload {
  title: string;
  body: string;
  url: string;
  tag?: string;
  icon?: string;
}

export interface SwClient {
  url: string;
  postMessage(message: unknown): void;
  focus?(): Promise<unknown>;
}

export interface SwNotification {
  data?: unknown;
  close(): void;
}

export interface SwScope {
  location: { origin: string; hostname: string };
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

/** A same-origin absolute URL for `url`, or the site's home page. */
export function siteUrl(scope: Pick<SwScope, "location">, url: unknown): string {
  const home = `${scope.location.origin}/`;
  if (typeof url !== "string" || !url) return home;
  try {
    const parsed = new URL(url, home);
    return parsed.origin === scope.location.origin ? parsed.href : home;
  } catch {
    return home;
  }
}

/** The payload of a push, whatever the server sent (JSON, plain text or nothing). */
export function parsePush(scope: Pick<SwScope, "location">, data: PushEventLike["data"]): PushPayload {
  let raw: unknown = null;
  if (data) {
    try {
      raw = data.json();
    } catch {
      raw = { body: data.text() };
    }
  }
  const value = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
  const text = (key: string) => (typeof value[key] === "string" ? (value[key] as string) : "");
  const payload: PushPayload = {
    title: text("title") || scope.location.hostname,
    body: text("body"),
    url: siteUrl(scope, value.url),
  };
  if (text("tag")) payload.tag = text("tag");
  if (text("icon")) payload.icon = text("icon");
  return payload;
}

async function windows(scope: SwScope): Promise<readonly SwClient[]> {
  return scope.clients.matchAll({ type: "window", includeUncontrolled: true });
}

export async function handlePush(scope: SwScope, payload: PushPayload): Promise<void> {
  await scope.registration.showNotification(payload.title, {
    body: payload.body,
    data: { url: payload.url },
    ...(payload.tag ? { tag: payload.tag, renotify: true } : {}),
    ...(payload.icon ? { icon: payload.icon } : {}),
  });
  for (const client of await windows(scope)) {
    client.postMessage({ type: PUSH_MESSAGE, payload });
  }
}

export async function handleNotificationClick(scope: SwScope, notification: SwNotification): Promise<void> {
  notification.close();
  const data = notification.data as { url?: unknown } | null | undefined;
  const openUrl = siteUrl(scope, data?.url);
  const open = (await windows(scope)).filter((client) => siteUrl(scope, client.url) === client.url);
  // A tab already on that page, else any tab of the site, else a new window.
  const client = open.find((c) => c.url === openUrl) ?? open[0];
  if (client) {
    client.postMessage({ type: PUSH_CLICK, openUrl });
    await client.focus?.();
    return;
  }
  await scope.clients.openWindow(openUrl);
}

export function installServiceWorker(scope: SwScope): void {
  scope.addEventListener("install", () => {
    void scope.skipWaiting();
  });
  scope.addEventListener("activate", (event: ExtendableEventLike) => {
    event.waitUntil(scope.clients.claim());
  });
  scope.addEventListener("push", (event: PushEventLike) => {
    event.waitUntil(handlePush(scope, parsePush(scope, event.data)));
  });
  scope.addEventListener("notificationclick", (event: NotificationEventLike) => {
    event.waitUntil(handleNotificationClick(scope, event.notification));
  });
}
