/** Prices: integer minor units, formatted by the browser for the page's language. */

/** A price after `percentage` off, rounded to the nearest unit (apps.payments.selectors.discounted). */
export function discounted(amount: number, percentage: number): number {
  if (!percentage) return amount;
  return amount - Math.floor((amount * percentage + 50) / 100);
}

/** The price of one credit, rounded up (never below what the member pays). */
export function perCredit(amount: number, credits: number): number {
  return credits > 0 ? Math.ceil(amount / credits) : 0;
}

const formats = new Map<string, Intl.NumberFormat>();

export function formatMoney(amount: number, currency: string, locale: string): string {
  const key = `${locale}|${currency}`;
  let format = formats.get(key);
  if (!format) {
    try {
      format = new Intl.NumberFormat(locale, { style: "currency", currency });
    } catch {
      format = new Intl.NumberFormat("en", { style: "currency", currency });
    }
    formats.set(key, format);
  }
  return format.format(amount / 100);
}

/** Fills {name} placeholders of a translated string. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in values ? String(values[name]) : match));
}
