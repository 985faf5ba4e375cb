/**
 * The activation reminder's alert (spec §4, templates/partials/activation_reminder.html): its
 * `[data-resend-confirmation]` box's button posts to /api/signup/resend.php and the status
 * line shows the box's `data-sent-text` or the server's message (e.g. the 429 one). The
 * reminder right after signing up is a dialog of its own (islands/ActivationReminder).
 */
import { post } from "../lib/api";
import { RESEND_URL } from "../lib/activation";

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
