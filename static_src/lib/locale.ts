/**
 * The member's locale for dates and money: their language plus their country ("en-GB":
 * 25/11/2026, £14.95), as the server decides it (apps.common.locale.locale_tag) and puts
 * in `<meta name="locale">` of every page (an island may also get it in its props). The
 * page's `<html lang>` (the language alone) and then "en" are the fallbacks.
 */

export function pageLocale(doc: Document | null = typeof document !== "undefined" ? document : null): string {
  const fromMeta = doc?.querySelector<HTMLMetaElement>('meta[name="locale"]')?.content?.trim();
  const tag = fromMeta || doc?.documentElement.lang?.trim() || "en";
  return supported(tag) ? tag : "en";
}

function supported(tag: string): boolean {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([tag]).length > 0;
  } catch {
    return false; // not a well-formed tag
  }
}

const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** Minor units (1495) as the locale writes the currency's amount ("£14.95" in en-GB, "14,95 €" in fr-FR). */
export function formatMoney(amount: number, currency: string, locale: string = pageLocale()): string {
  const key = `${locale}|${currency}`;
  let format = numberFormats.get(key);
  if (!format) {
    try {
      format = new Intl.NumberFormat(locale, { style: "currency", currency });
    } catch {
      format = new Intl.NumberFormat("en", { style: "currency", currency });
    }
    numberFormats.set(key, format);
  }
  return format.format(amount / 100);
}

/** A date (Date or ISO string) in the locale: `formatDate(d)` is "25/11/2026" in en-GB, "11/25/2026" in en-US. */
export function formatDate(
  value: Date | string,
  options: Intl.DateTimeFormatOptions = { day: "2-digit", month: "2-digit", year: "numeric" },
  locale: string = pageLocale(),
): string {
  const date = typeof value === "string" ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return "";
  const key = `${locale}|${JSON.stringify(options)}`;
  let format = dateFormats.get(key);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat(locale, options);
    } catch {
      format = new Intl.DateTimeFormat("en", options);
    }
    dateFormats.set(key, format);
  }
  return format.format(date);
}
