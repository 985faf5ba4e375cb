/**
 * The top bar's back button (spec §2): the installed app has no browser back button, so
 * on some routes (base/backRoutes.ts; the base entry imports this module only there) the
 * top bar shows one, only in standalone mode and only when there is a page to go back to
 * (history longer than 1).
 *
 *   <body data-route="members-id">   the Django url name (templates/layouts/base.html)
 *   <button data-back-button hidden aria-label="Back">   (templates/partials/topbar.html)
 */
import { isStandalone, STANDALONE_QUERY } from "../lib/standalone";
import { BACK_BUTTON_ROUTES } from "./backRoutes";

export { BACK_BUTTON_ROUTES };

export interface BackButtonState {
  route: string;
  historyLength: number;
  standalone: boolean;
}

export function backButtonVisible({ route, historyLength, standalone }: BackButtonState): boolean {
  return standalone && historyLength > 1 && BACK_BUTTON_ROUTES.has(route);
}

/** Shows or hides the button now, when the page comes back from the back-forward cache and
 * when the display mode changes; a click goes back. Returns the function that stops it. */
export function installBackButton(doc: Document = document, win: Window = window): () => void {
  const button = doc.querySelector<HTMLElement>("[data-back-button]");
  if (!button) return () => {};
  const route = doc.body?.dataset.route ?? "";
  const update = () => {
    button.hidden = !backButtonVisible({ route, historyLength: win.history.length, standalone: isStandalone(win) });
  };
  const onClick = (event: Event) => {
    event.preventDefault();
    win.history.back();
  };
  button.addEventListener("click", onClick);
  win.addEventListener("pageshow", update);
  let media: MediaQueryList | null = null;
  try {
    media = typeof win.matchMedia === "function" ? win.matchMedia(STANDALONE_QUERY) : null;
    media?.addEventListener?.("change", update);
  } catch {
    media = null;
  }
  update();
  return () => {
    button.removeEventListener("click", onClick);
    win.removeEventListener("pageshow", update);
    media?.removeEventListener?.("change", update);
  };
}
