/**
 * The activation reminder right after signing up (spec §4): a logged-in member whose address
 * is not confirmed yet gets it on the first page after the signup (`?api_signup_complete`,
 * apps.accounts.selectors.activation_reminder), on the one Dialog (lib/Dialog.tsx). Every
 * other page shows the reminder as an alert (templates/partials/activation_reminder.html).
 *
 * - It opens on load, except on smartphones (lib/activation.ts isSmartphone): there it is
 *   not shown at all.
 * - "Send the e-mail again" posts once (no retries: each try may send a mail); the status
 *   line (a polite live region) says it was sent, or the server's message (e.g. the 429
 *   one), after which the member may try again. While it is sending and once it was sent the
 *   button is aria-disabled, so the focus stays on it.
 * - The close button, OK, Escape and the backdrop close it.
 */
import { useState } from "react";

import { Dialog } from "../../lib/Dialog";
import { RESEND_URL, isSmartphone } from "../../lib/activation";
import { post } from "../../lib/api";

export interface ActivationReminderProps {
  /** The text with the member's address in it. */
  text: string;
  strings: { title: string; close: string; ok: string; resend: string; sent: string };
}

type Resend = { state: "idle" | "sending" | "sent" | "error"; message: string };

export function ActivationReminder({ text, strings }: ActivationReminderProps) {
  const [open, setOpen] = useState(() => !isSmartphone());
  const [resend, setResend] = useState<Resend>({ state: "idle", message: "" });
  const blocked = resend.state === "sending" || resend.state === "sent";

  const sendAgain = async () => {
    if (blocked) return;
    setResend({ state: "sending", message: "" });
    try {
      await post(RESEND_URL, {}, { retries: 0 });
      setResend({ state: "sent", message: strings.sent });
    } catch (error) {
      setResend({ state: "error", message: error instanceof Error ? error.message : String(error) });
    }
  };

  return (
    <Dialog
      open={open}
      onClose={() => setOpen(false)}
      title={strings.title}
      closeLabel={strings.close}
      testId="activation-modal"
      closeTestId="activation-modal-close"
      footer={
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => setOpen(false)}
          data-testid="activation-modal-ok"
        >
          {strings.ok}
        </button>
      }
    >
      <p>{text}</p>
      <div className="d-flex flex-wrap align-items-center gap-2">
        <button
          type="button"
          className={blocked ? "btn btn-sm btn-outline-dark disabled" : "btn btn-sm btn-outline-dark"}
          aria-disabled={blocked || undefined}
          onClick={() => void sendAgain()}
          data-testid="activation-resend"
        >
          {strings.resend}
        </button>
        <span
          className="small"
          role="status"
          aria-live="polite"
          data-state={resend.state === "sent" || resend.state === "error" ? resend.state : undefined}
          data-testid="activation-resend-status"
        >
          {resend.message}
        </span>
      </div>
    </Dialog>
  );
}
