/**
 * Top-bar badges (spec §2, §9 "Badge cap 99+"). The server renders them; this keeps them in
 * step with appStore.totals when an island updates the counts.
 *
 *   <span class="unread-badge" data-badge="messages" hidden></span>   unread messages
 *   <span class="unread-badge" data-badge="likes">3</span>             new likes
 *   <span class="unread-badge" data-badge="total">99+</span>           both (phone menu button)
 */
import type { Totals } from "./store";

export const BADGE_CAP = 99;

/** "" for nothing, "1".."99", then "99+" (the same rule as apps.accounts.selectors.badge_label). */
export function badgeLabel(count: number): string {
  const n = Math.floor(Number(count) || 0);
  if (n <= 0) return "";
  return n > BADGE_CAP ? `${BADGE_CAP}+` : String(n);
}

export function renderBadges(totals: Totals, root: ParentNode = document): void {
  const counts: Record<string, number> = {
    messages: totals.unreadMessages,
    likes: totals.newLikes,
    total: (totals.unreadMessages || 0) + (totals.newLikes || 0),
  };
  for (const el of root.querySelectorAll<HTMLElement>(".unread-badge[data-badge]")) {
    const name = el.dataset.badge ?? "";
    if (!(name in counts)) continue;
    const label = badgeLabel(counts[name]);
    el.textContent = label;
    el.hidden = label === "";
  }
}
