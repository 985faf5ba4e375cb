/**
 * A push shown in the page (spec §3 "push ... last message", §7 NEW_PUSH_MESSAGE): imported by
 * lib/push.ts only when a push arrives that the service worker did not show as an OS
 * notification, because a window of the site was focused and visible (sw/handlers.ts
 * pageShowsPush).
 *
 * The page shows it as a small notice when
 * - the page is visible and has the focus (the member is looking at it; other tabs of the site
 *   show nothing),
 * - it is not the last message remembered before it (sessionStorage "push-last-message",
 *   which outlives a reload): push services deliver a message again now and then; a push
 *   without id cannot be told apart and is shown,
 * - and this page is not the push's page (url or checkUrl, path and query): the conversation
 *   the member has open shows the message itself.
 *
 * The notice goes into the live region the base layout renders on every page, with the
 * server's translated strings (notifications/partials/push_notices.html):
 *
 *   <div class="push-notices" role="status" aria-live="polite" aria-label="Notifications"
 *        data-push-notices data-open-text="Open" data-close-text="Close"></div>
 *
 * Its title and body, an "Open" link to its page and a Close button (Escape closes it too).
 * It never takes the focus and stays until closed (WCAG 2.2.1: no time limit to read or reach
 * it); a newer push replaces it, so they do not pile up.
 */
import { pageOf, sameOriginUrl } from "./sitePage";
import type { PushLastMessage } from "./store";

interface NoticePayload {
  id?: unknown;
  title?: unknown;
  body?: unknown;
  url?: unknown;
  checkUrl?: unknown;
}

/** Whether this page shows the push (see above). */
export function shouldShowPushNotice(payload: unknown, previous: PushLastMessage | null | undefined, win: Window): boolean {
  const doc = win.document;
  if (doc.visibilityState !== "visible" || !doc.hasFocus()) return false;
  const value = (typeof payload === "object" && payload !== null ? payload : {}) as NoticePayload;
  const id = typeof value.id === "number" ? String(value.id) : value.id;
  if (typeof id === "string" && id !== "" && previous?.id === id) return false;
  const here = pageOf(new URL(win.location.href));
  for (const url of [value.url, value.checkUrl]) {
    const target = sameOriginUrl(url, win);
    if (target && pageOf(target) === here) return false;
  }
  return typeof value.title === "string" && value.title !== "";
}

/** Removes the notice; the focus, when it was in it, goes to the main content. */
function closeNotice(notice: HTMLElement, win: Window): void {
  const doc = win.document;
  const hadFocus = notice.contains(doc.activeElement);
  notice.remove();
  if (hadFocus) doc.querySelector<HTMLElement>("#main")?.focus({ preventScroll: true });
}

/**
 * Shows the push of the worker's message ({type, payload, inPage}) in the page when it should
 * (shouldShowPushNotice, against `before.push.lastMessage`: the app state before this push was
 * remembered); returns the notice or null.
 */
export default function showPushNotice(
  message: { payload?: unknown },
  before: { push: { lastMessage?: PushLastMessage | null } },
  win: Window = window,
): HTMLElement | null {
  const payload = message.payload;
  const previous = before.push.lastMessage;
  const doc = win.document;
  const region = doc.querySelector<HTMLElement>("[data-push-notices]");
  if (!region || !shouldShowPushNotice(payload, previous, win)) return null;
  const value = payload as NoticePayload;
  const el = <K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text = "") => {
    const node = doc.createElement(tag);
    node.className = className;
    node.textContent = text;
    return node;
  };

  const notice = el("div", "toast show push-notice");
  notice.dataset.testid = "push-notice";
  const content = el("div", "push-notice-content");
  const text = el("div", "push-notice-text");
  const title = el("p", "push-notice-title", value.title as string);
  title.id = "push-notice-title";
  text.append(title);
  if (typeof value.body === "string" && value.body) text.append(el("p", "push-notice-body", value.body));
  content.append(text);
  const target = sameOriginUrl(value.url, win);
  if (target) {
    const open = el("a", "btn btn-primary btn-sm push-notice-open", region.dataset.openText ?? "");
    open.href = target.href;
    open.setAttribute("aria-describedby", title.id);
    open.dataset.testid = "push-notice-open";
    content.append(open);
  }
  const close = el("button", "btn-close push-notice-close");
  close.type = "button";
  close.setAttribute("aria-label", region.dataset.closeText ?? "");
  close.dataset.testid = "push-notice-close";
  close.addEventListener("click", () => closeNotice(notice, win));
  content.append(close);
  notice.append(content);
  notice.addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeNotice(notice, win);
  });
  // One at a time: a newer push replaces the notice (the focus, if it was in the older one,
  // goes to the newer one's Close button rather than being lost).
  const hadFocus = region.contains(doc.activeElement);
  region.replaceChildren(notice);
  if (hadFocus) close.focus();
  return notice;
}
