/**
 * Whether the member is at the screen (docs/notifications.md, "Idle desktop"): the page is
 * visible and there was input (pointer, key, touch, wheel, focus) in the last IDLE_MS. A
 * tab left open on a desktop nobody uses does not mark new messages read: they stay unread
 * and become an e-mail or push after the delay, as for a member who is away. The first
 * input after being idle (or the page shown again) calls the `onActive` listeners, so what
 * arrived meanwhile is read then.
 */
export const IDLE_MS = 2 * 60 * 1000;
const INPUT_EVENTS = ["pointerdown", "keydown", "touchstart", "wheel", "focus"] as const;

let lastInput = Date.now();
const listeners = new Set<() => void>();
let installed = false;

export function memberActive(now: number = Date.now(), doc: Document = document): boolean {
  return doc.visibilityState !== "hidden" && now - lastInput < IDLE_MS;
}

/** Record input now; listeners hear of it when the member was idle until then. */
export function noteInput(now: number = Date.now(), doc: Document = document): void {
  const wasIdle = !memberActive(now, doc);
  lastInput = now;
  if (wasIdle && memberActive(now, doc)) listeners.forEach((listener) => listener());
}

/** `callback` runs when the member comes back (input after idling, the page shown again). */
export function onActive(callback: () => void): () => void {
  listeners.add(callback);
  return () => listeners.delete(callback);
}

export function installActivityTracking(win: Window = window): void {
  if (installed) return;
  installed = true;
  lastInput = Date.now();
  for (const type of INPUT_EVENTS) {
    win.addEventListener(type, () => noteInput(Date.now(), win.document), { capture: true, passive: true });
  }
  win.document.addEventListener("visibilitychange", () => {
    if (win.document.visibilityState === "visible") {
      lastInput = Date.now();
      listeners.forEach((listener) => listener());
    }
  });
}

/** Tests: forget the state. */
export function activityReset(now: number = Date.now()): void {
  lastInput = now;
  listeners.clear();
}
