/**
 * The payment's state after the gateway (spec §4 "Payment": loading, pending, completed,
 * failed): polling GET /api/payment.php?id= with backoff, and the shared store updated once
 * credits are added, so the top bar shows the new balance and "Credits" for premium.
 */
import { appStore, type AppState, type Store } from "../../lib/store";
import type { Payment, PaymentStatus } from "./types";

/** First poll 2 s after the previous answer, then each wait 1.5 times longer, at most 10 s. */
export const POLL_FIRST_MS = 2_000;
export const POLL_FACTOR = 1.5;
export const POLL_MAX_MS = 10_000;
/** Polling stops after about three minutes; "Check again" starts it anew. */
export const POLL_LIMIT_MS = 3 * 60_000;

export function pollDelay(attempt: number): number {
  return Math.min(POLL_MAX_MS, Math.round(POLL_FIRST_MS * POLL_FACTOR ** Math.max(0, attempt)));
}

const STATUSES: readonly PaymentStatus[] = ["loading", "pending", "completed", "failed"];

export function isFinal(status: PaymentStatus): boolean {
  return status === "completed" || status === "failed";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A payment of an API answer ({"payment": {...}} or the payment itself); null if broken. */
export function parsePayment(data: unknown): Payment | null {
  const raw = isObject(data) && isObject(data.payment) ? data.payment : data;
  if (!isObject(raw) || typeof raw.id !== "string") return null;
  if (!STATUSES.includes(raw.status as PaymentStatus)) return null;
  return raw as unknown as Payment;
}

/**
 * Credits were added: the member's balance and premium state go to the shared store (the
 * top bar follows it), and the time bonus ends (spec §4 "cleared ... on payment").
 */
export function applyPurchaseToStore(payment: Payment, store: Store<AppState> = appStore): void {
  store.set((state) =>
    state.user ? { user: { ...state.user, credits: payment.balance, paid_user: payment.paid_user } } : {},
  );
  if (payment.paid_user) store.set({ timeBonus: null });
}
