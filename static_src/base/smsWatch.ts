/**
 * The direct-debit code page (`data-sms-watch="<request id>"`, templates/payments/
 * directdebit_code.html) while the member waits for the code: when the SMS provider reports
 * the code's SMS undelivered (the "directdebit.sms" event on the member's live connection,
 * sent by apps.payments.directdebit.directdebit_sms_receipt), the page loads again and so
 * offers a new code at once instead of the code field. The element's
 * `data-sms-watching` follows the connection's state ("connecting", "open", "down").
 */
import type { Realtime } from "../lib/realtime";

export const SMS_EVENT = "directdebit.sms";

export function installSmsWatch(
  realtime: Pick<Realtime, "on" | "onStatus" | "status">,
  root: Document = document,
  reload: () => void = () => window.location.reload(),
): () => void {
  const element = root.querySelector<HTMLElement>("[data-sms-watch]");
  const request = element?.dataset.smsWatch;
  if (!element || !request) return () => undefined;
  element.dataset.smsWatching = realtime.status;
  const offStatus = realtime.onStatus((status) => {
    element.dataset.smsWatching = status;
  });
  const offEvent = realtime.on(SMS_EVENT, (event) => {
    if (String(event.request) === request && event.state === "failed") reload();
  });
  return () => {
    offStatus();
    offEvent();
  };
}
