/**
 * Installed-app ("standalone") mode (spec §2): the site runs as an app from the home
 * screen, without the browser's own address bar and back button. Then the site-entry
 * warning is skipped and the top bar gets a back button on some routes.
 */

export const STANDALONE_QUERY = "(display-mode: standalone)";

/** `display-mode: standalone`, or iOS Safari's navigator.standalone. */
export function isStandalone(win: Window = window): boolean {
  try {
    if (typeof win.matchMedia === "function" && win.matchMedia(STANDALONE_QUERY).matches) return true;
  } catch {
    // matchMedia unsupported: not standalone
  }
  return (win.navigator as (Navigator & { standalone?: boolean }) | undefined)?.standalone === true;
}

/**
 * Runs `run` once the page is in standalone mode: at once when it is, else when the display
 * mode changes to it (a tab moved into the installed app). Never in a browser without matchMedia.
 */
export function whenStandalone(run: () => void, win: Window = window): void {
  if (isStandalone(win)) {
    run();
    return;
  }
  try {
    const media = win.matchMedia(STANDALONE_QUERY);
    const onChange = () => {
      if (!media.matches) return;
      media.removeEventListener("change", onChange);
      run();
    };
    media.addEventListener("change", onChange);
  } catch {
    // matchMedia unsupported: never standalone
  }
}
