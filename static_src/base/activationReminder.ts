/**
 * Activation reminder (spec §4), rendered by the server as an alert or, right after signing
 * up, a modal (templates/partials/activation_reminder.html).
 *
 * - `.modal[data-autoshow]` is shown on load; with `data-autoshow-skip-phone` it is removed
 *   instead on smartphones (the reminder is suppressed there after signing up).
 * - `[data-resend-confirmation]` boxes: the button posts to /api/signup/resend.php and the
 *   status line shows the box's `data-sent-text` or the server's message (e.g. the 429 one).
 */
import type Modal from "bootstrap/js/dist/modal.js";

import { post } from "../lib/api";
import { loadBootstrap } from "./bootstrapOnDemand";

export const RESEND_URL = "/api/signup/resend.php";
export const SMARTPHONE_QUERIES = ["(max-width: 575.98px)", "(pointer: coarse)"];

export function isSmartphone(win: Window = window): boolean {
  if (typeof win.matchMedia !== "function") return false;
  return SMARTPHONE_QUERIES.some((query) => win.matchMedia(query).matches);
}

/**
 * Shows each `.modal[data-autoshow]` (or drops it on phones when it says so); resolves to
 * those shown. Bootstrap's modal is loaded only when there is one to show.
 */
export async function autoshowModals(doc: Document = document, win: Window = window): Promise<Element[]> {
  const shown: Element[] = [];
  for (const el of doc.querySelectorAll(".modal[data-autoshow]")) {
    if (el.hasAttribute("data-autoshow-skip-phone") && isSmartphone(win)) {
      el.remove();
      continue;
    }
    shown.push(el);
  }
  if (!shown.length) return shown;
  const { default: ModalClass } = await loadBootstrap<{ default: typeof Modal }>("modal");
  for (const el of shown) ModalClass.getOrCreateInstance(el).show?.();
  return shown;
}

export function installResendConfirmation(root: ParentNode = document): void {
  for (const box of root.querySelectorAll<HTMLElement>("[data-resend-confirmation]")) {
    const button = box.querySelector<HTMLButtonElement>("[data-resend-button]");
    const status = box.querySelector<HTMLElement>("[data-resend-status]");
    if (!button || !status || button.dataset.resendBound) continue;
    button.dataset.resendBound = "1";
    button.addEventListener("click", async () => {
      button.disabled = true;
      status.textContent = "";
      try {
        // Not repeated on failure: each try may send a mail.
        await post(RESEND_URL, {}, { retries: 0 });
        status.textContent = box.dataset.sentText ?? "";
        status.dataset.state = "sent";
      } catch (error) {
        status.textContent = error instanceof Error ? error.message : String(error);
        status.dataset.state = "error";
        button.disabled = false;
      }
    });
  }
}
