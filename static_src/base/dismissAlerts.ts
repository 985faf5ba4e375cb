/**
 * Dismissible alerts (spec §4: add profile photo, enable push, disabled notifications).
 * A click on an element with `data-dismiss-alert="<name>"` (the alert's close button, which
 * Bootstrap's `data-bs-dismiss="alert"` already hides) stores the dismissal with its time on
 * the server (POST /api/dismiss.php {"alert": name}), so the server stops rendering it.
 */
import { post } from "../lib/api";

export const DISMISS_URL = "/api/dismiss.php";

export function installDismissAlerts(root: Document = document): void {
  root.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target.closest<HTMLElement>("[data-dismiss-alert]") : null;
    const alert = target?.dataset.dismissAlert;
    if (!alert) return;
    // Hidden already; a failure only means the alert may come back on a later page.
    post(DISMISS_URL, { alert }).catch(() => undefined);
  });
}
