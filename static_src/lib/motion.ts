/** Whether the visitor asked the system for reduced motion (no autoplay, no animation). */
export function prefersReducedMotion(win: Window = window): boolean {
  return typeof win.matchMedia === "function" && win.matchMedia("(prefers-reduced-motion: reduce)").matches;
}
