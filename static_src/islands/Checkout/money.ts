/** Prices: integer minor units, formatted for the member's locale (language and country). */

/** A price after `percentage` off, rounded to the nearest unit (apps.payments.selectors.discounted). */
export function discounted(amount: number, percentage: number): number {
  if (!percentage) return amount;
  return amount - Math.floor((amount * percentage + 50) / 100);
}

/** The price of one credit, rounded up (never below what the member pays). */
export function perCredit(amount: number, credits: number): number {
  return credits > 0 ? Math.ceil(amount / credits) : 0;
}

/** Minor units in the member's locale (the server's "locale" prop, e.g. "en-GB"): lib/locale.ts. */
export { formatMoney } from "../../lib/locale";

/** Fills {name} placeholders of a translated string. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in values ? String(values[name]) : match));
}
