/**
 * Top-bar badges (spec §2, §9 "Badge cap 99+"). The server renders them; this keeps them in
 * step with appStore.totals when an island updates the counts. The base entry imports this
 * module with import() on the first change; the count's label is lib/badgeLabel.ts (the chat
 * list's unread counts use it too).
 *
 *   <span class="unread-badge" data-badge="messages" hidden></span>   unread messages
 *   <span class="unread-badge" data-badge="likes">3</span>             new likes
 */
import { badgeLabel } from "./badgeLabel";
import type { AppUser, Totals } from "./store";

export { BADGE_CAP, badgeLabel } from "./badgeLabel";

export function renderBadges(totals: Totals, root: ParentNode = document): void {
  const counts: Record<string, number> = {
    messages: totals.unreadMessages,
    likes: totals.newLikes,
  };
  for (const el of root.querySelectorAll<HTMLElement>(".unread-badge[data-badge]")) {
    const name = el.dataset.badge ?? "";
    if (!(name in counts)) continue;
    const label = badgeLabel(counts[name]);
    el.textContent = label;
    el.hidden = label === "";
  }
}

// ---------------------------------------------------------------------------------------
// The credits link (spec §2 top bar: "Credits" for paid users, else "Get Premium"; a credits
// badge at 10 or fewer, warning above 0, danger at 0). The server renders it; this keeps it in
// step with appStore.user (a purchase, the periodic user refresh).
//
//   <a data-topbar-credits data-label-credits="Credits" data-paid-href="/credits/repeat-order"
//      href="/premium"><span>Get Premium</span> <span data-badge="credits" ...>0</span></a>
// ---------------------------------------------------------------------------------------

export const CREDITS_BADGE_THRESHOLD = 10;

export interface CreditsBadge {
  label: string;
  style: "warning" | "danger";
}

/** The same rule as apps.accounts.selectors.credits_badge. */
export function creditsBadge(credits: number): CreditsBadge | null {
  const n = Math.floor(Number(credits));
  if (!Number.isFinite(n) || n > CREDITS_BADGE_THRESHOLD) return null;
  return { label: String(Math.max(n, 0)), style: n <= 0 ? "danger" : "warning" };
}

export interface CreditsUser {
  credits?: unknown;
  paid_user?: unknown;
}

/** Every credits link on the page: the top bar's and the phones' bottom bar's
 * (templates/partials/bottom_nav.html, whose badge has data-badge-testid on its link). */
export function renderCredits(user: CreditsUser | AppUser | null, root: ParentNode = document): void {
  if (!user) return;
  for (const link of root.querySelectorAll<HTMLAnchorElement>("a[data-topbar-credits]")) {
    renderCreditsLink(link, user);
  }
}

function renderCreditsLink(link: HTMLAnchorElement, user: CreditsUser | AppUser): void {
  const label = link.dataset.labelCredits ?? "";
  if (user.paid_user === true && link.dataset.paidHref) {
    link.setAttribute("href", link.dataset.paidHref);
    delete link.dataset.paidHref;
    const text = link.querySelector("span:not([data-badge])");
    if (text && label) text.textContent = label;
  }
  if (typeof user.credits !== "number") return;
  const wanted = creditsBadge(user.credits);
  let badge = link.querySelector<HTMLElement>('[data-badge="credits"]');
  if (!wanted) {
    badge?.remove();
    return;
  }
  if (!badge) {
    badge = link.ownerDocument.createElement("span");
    badge.dataset.badge = "credits";
    badge.dataset.testid = link.dataset.badgeTestid ?? "badge-credits";
    if (label) badge.title = label;
    link.append(" ", badge);
  }
  badge.className = `${link.dataset.badgeClass ?? "badge rounded-pill"} text-bg-${wanted.style}`;
  badge.textContent = wanted.label;
}
