/**
 * A count as a badge shows it (spec §9 "Badge cap 99+"): the top bar's badges
 * (lib/badges.ts) and the chat list's unread counts. Apart from lib/badges.ts, which the base
 * entry imports only with import(), so that the chat list does not carry that module.
 */
export const BADGE_CAP = 99;

/** "" for nothing, "1".."99", then "99+" (the same rule as apps.accounts.selectors.badge_label). */
export function badgeLabel(count: number): string {
  const n = Math.floor(Number(count) || 0);
  if (n <= 0) return "";
  return n > BADGE_CAP ? `${BADGE_CAP}+` : String(n);
}
