/**
 * Top progress bar for full page navigations (spec §9: throttle 200 ms, duration 5 s).
 *
 * When the user follows a same-origin link or submits a form, wait 200 ms; if the page is
 * still there, show a thin bar at the top that grows towards 90 % over 5 s. Fast navigations
 * never show it. It is hidden again on pageshow (a page restored from the bfcache).
 */

import { prefersReducedMotion } from "./motion";

export const PROGRESS_THROTTLE_MS = 200;
export const PROGRESS_DURATION_MS = 5000;
export const PROGRESS_BAR_ID = "progress-bar";
export const PROGRESS_BAR_CLASS = "progress-bar-top";

export interface ProgressOptions {
  throttleMs?: number;
  durationMs?: number;
  doc?: Document;
}

export interface ProgressBar {
  /** Schedules the bar (shown after the throttle delay). */
  start(): void;
  /** Hides the bar and cancels a pending start. */
  done(): void;
  /** Removes listeners and the element. */
  uninstall(): void;
}

/** Whether a click on this link starts a full page navigation in this tab to our origin. */
export function isTrackedLinkClick(event: MouseEvent, win: Window = window): boolean {
  if (event.defaultPrevented || event.button !== 0) return false;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return false;
  const start = event.target instanceof Element ? event.target : null;
  const link = start?.closest("a[href]");
  if (!(link instanceof HTMLAnchorElement)) return false;
  if (link.hasAttribute("download") || link.hasAttribute("data-no-progress")) return false;
  const target = link.getAttribute("target");
  if (target && target !== "_self") return false;
  let url: URL;
  try {
    url = new URL(link.href, win.location.href);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (url.origin !== win.location.origin) return false;
  const here = win.location;
  // A #hash on the same page does not load a page.
  if (url.hash && url.pathname === here.pathname && url.search === here.search) return false;
  return true;
}

/** Whether this submit event starts a navigation of this tab. */
export function isTrackedSubmit(event: SubmitEvent): boolean {
  if (event.defaultPrevented) return false;
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return false;
  if (form.hasAttribute("data-no-progress")) return false;
  const submitter = event.submitter as HTMLButtonElement | HTMLInputElement | null;
  const target = submitter?.getAttribute("formtarget") ?? form.getAttribute("target");
  if (target && target !== "_self") return false;
  const method = (submitter?.getAttribute("formmethod") ?? form.getAttribute("method") ?? "").toLowerCase();
  if (method === "dialog") return false;
  return true;
}

export function installProgressBar(options: ProgressOptions = {}): ProgressBar {
  const doc = options.doc ?? document;
  const win = doc.defaultView ?? window;
  const throttleMs = options.throttleMs ?? PROGRESS_THROTTLE_MS;
  const durationMs = options.durationMs ?? PROGRESS_DURATION_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function element(): HTMLDivElement {
    let el = doc.getElementById(PROGRESS_BAR_ID) as HTMLDivElement | null;
    if (!el) {
      el = doc.createElement("div");
      el.id = PROGRESS_BAR_ID;
      el.className = PROGRESS_BAR_CLASS;
      el.setAttribute("aria-hidden", "true");
      el.hidden = true;
      doc.body.appendChild(el);
    }
    return el;
  }

  function show(): void {
    const el = element();
    el.hidden = false;
    el.classList.add("is-active");
    if (prefersReducedMotion(win)) {
      el.style.transition = "none";
      el.style.width = "90%";
      return;
    }
    el.style.transition = "none";
    el.style.width = "0%";
    void el.offsetWidth; // restart from 0 before animating
    el.style.transition = `width ${durationMs}ms cubic-bezier(0.1, 0.7, 0.3, 1)`;
    el.style.width = "90%";
  }

  function start(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      show();
    }, throttleMs);
  }

  function done(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const el = doc.getElementById(PROGRESS_BAR_ID);
    if (el) {
      el.hidden = true;
      el.classList.remove("is-active");
      el.style.transition = "none";
      el.style.width = "0%";
    }
  }

  const onClick = (event: MouseEvent) => {
    if (isTrackedLinkClick(event, win)) start();
  };
  const onSubmit = (event: SubmitEvent) => {
    if (isTrackedSubmit(event)) start();
  };
  const onPageShow = () => done();

  // Bubble phase on the document: island handlers (React listens on its root) run first, so
  // a link whose click an island cancels with preventDefault() is not tracked.
  doc.addEventListener("click", onClick);
  doc.addEventListener("submit", onSubmit);
  win.addEventListener("pageshow", onPageShow);

  return {
    start,
    done,
    uninstall() {
      done();
      doc.removeEventListener("click", onClick);
      doc.removeEventListener("submit", onSubmit);
      win.removeEventListener("pageshow", onPageShow);
      doc.getElementById(PROGRESS_BAR_ID)?.remove();
    },
  };
}
