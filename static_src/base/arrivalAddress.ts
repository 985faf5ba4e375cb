/**
 * A paid arrival's tracking parameters leave the address (spec §7: stored, then removed
 * from the URL). The server keeps them in the tracking cookie; when the page cache answers
 * the arrival with the page itself (docs/decisions.md "Paid arrivals from the cache too")
 * instead of a redirect to the address without them, this takes them out of the address
 * bar. The page names them (`<meta name="arrival-params">`, apps.accounts.tracking); every
 * other parameter stays as it was.
 */
export function arrivalAddressClean(doc: Document = document, win: Window = window): boolean {
  if (!win.location.search) return false;
  const names = doc.querySelector<HTMLMetaElement>('meta[name="arrival-params"]')?.content.split(" ") ?? [];
  const url = new URL(win.location.href);
  let removed = false;
  for (const name of names) {
    if (name && url.searchParams.has(name)) {
      url.searchParams.delete(name);
      removed = true;
    }
  }
  if (!removed) return false;
  win.history.replaceState(win.history.state, "", url.pathname + url.search + url.hash);
  return true;
}
