/**
 * "This site" and "the same page" for URLs that come in a push (lib/push.ts for a click on a
 * notification, lib/pushNotice.ts for a notice shown in the page): one rule for both, so a
 * notice is never shown on the page a click would have opened.
 */

/** `url` resolved against the page when it is on this site; null for anything else. */
export function sameOriginUrl(url: unknown, win: Window): URL | null {
  if (typeof url !== "string" || !url) return null;
  try {
    const parsed = new URL(url, win.location.href);
    return parsed.origin === win.location.origin ? parsed : null;
  } catch {
    return null;
  }
}

/** The page part of a URL ("origin/path?query", no hash): what "the same page" compares. */
export function pageOf(url: URL): string {
  return `${url.origin}${url.pathname}${url.search}`;
}
