/**
 * The activation reminder's shared bits (spec §4): the "send the e-mail again" endpoint, used
 * by the alert's buttons (base/activationReminder.ts) and the reminder dialog
 * (islands/ActivationReminder), and what counts as a smartphone, where the dialog after
 * signing up is not shown.
 */

export const RESEND_URL = "/api/signup/resend.php";
export const SMARTPHONE_QUERIES = ["(max-width: 575.98px)", "(pointer: coarse)"];

export function isSmartphone(win: Window = window): boolean {
  if (typeof win.matchMedia !== "function") return false;
  return SMARTPHONE_QUERIES.some((query) => win.matchMedia(query).matches);
}
