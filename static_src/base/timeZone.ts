/**
 * The browser's time zone, kept on the member's account (apps/accounts/time_zone.py): the
 * member's pages write its IANA name ("Europe/Berlin") into the cookie the body names
 * (`data-time-zone-cookie`, members' pages only); the server keeps it and shows dates,
 * and sends mails and pushes, in that zone. Written only when it changed.
 */
const ZONE_NAME = /^[A-Za-z0-9_+\-/]{1,64}$/;
const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone ?? "";
  } catch {
    return "";
  }
}

function cookieValue(doc: Document, name: string): string | null {
  for (const part of doc.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return null;
}

/** Writes the zone's cookie when the page asks for it and it differs; returns whether it wrote. */
export function keepTimeZone(doc: Document = document, zone: string = browserTimeZone()): boolean {
  const name = doc.body?.dataset.timeZoneCookie;
  if (!name || !ZONE_NAME.test(zone) || cookieValue(doc, name) === zone) return false;
  const secure = doc.location?.protocol === "https:" ? "; Secure" : "";
  doc.cookie = `${name}=${zone}; Max-Age=${ONE_YEAR_SECONDS}; Path=/; SameSite=Lax${secure}`;
  return true;
}
