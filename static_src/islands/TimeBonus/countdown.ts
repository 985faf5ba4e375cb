/**
 * The time-bonus countdown (spec §4 "Welcome time bonus", §9: tick 1000 ms).
 *
 * One countdown per page, whatever number of components shows it: a module-level
 * singleton with one interval, started by the first user (acquireCountdown / the
 * useCountdown hook) and stopped when the last one leaves. The remaining seconds are
 * recomputed from appStore.timeBonus.expiresAt on each tick, so a throttled background
 * tab does not fall behind.
 *
 * The time bonus is cleared from appStore (and the interval stopped) at zero, on logout
 * (appStore.user null), when the member becomes a paid user (user.paid_user), and never
 * lasts longer than 4 hours.
 */
import { useLayoutEffect } from "react";

import { appStore, createStore, useStore, type AppState, type Store, type TimeBonus } from "../../lib/store";

export const TICK_MS = 1000;

/** Sets (or with null clears) the member's time bonus (appStore.timeBonus; only this island
 * changes it, so it lives here and not with every page's store code). */
export function setTimeBonus(timeBonus: TimeBonus | null, store: Store<AppState> = appStore): void {
  store.set({ timeBonus });
}
export const TIME_BONUS_SECONDS = 14_400;

/** Whole seconds left of the time bonus (0 when there is none), at most 4 hours. */
export function secondsLeft(bonus: TimeBonus | null, now: number = Date.now()): number {
  if (!bonus) return 0;
  return Math.min(TIME_BONUS_SECONDS, Math.max(0, Math.ceil((bonus.expiresAt - now) / 1000)));
}

/** HH:MM:SS, two digits each. */
export function formatCountdown(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  return [hours, minutes, total % 60].map((n) => String(n).padStart(2, "0")).join(":");
}

interface CountdownState {
  seconds: number;
}

const countdown = createStore<CountdownState>({ seconds: 0 });
let timer: ReturnType<typeof setInterval> | null = null;
let users = 0;
let unsubscribe: (() => void) | null = null;

function stopTimer(): void {
  if (timer !== null) clearInterval(timer);
  timer = null;
}

function isOver(state: AppState): boolean {
  const user = state.user;
  return !user || user.paid_user === true || secondsLeft(state.timeBonus) <= 0;
}

/** Brings the countdown in line with appStore; clears a time bonus that is over. */
function sync(): void {
  const state = appStore.get();
  if (state.timeBonus && isOver(state)) {
    stopTimer();
    countdown.set({ seconds: 0 });
    setTimeBonus(null); // the store listener calls sync() again, with nothing left to do
    return;
  }
  const seconds = secondsLeft(state.timeBonus);
  countdown.set({ seconds });
  if (seconds > 0 && users > 0) {
    timer ??= setInterval(sync, TICK_MS);
  } else {
    stopTimer();
  }
}

/** Starts (or joins) the one countdown; returns the function that leaves it. */
export function acquireCountdown(): () => void {
  users += 1;
  unsubscribe ??= appStore.subscribe((state, previous) => {
    if (state.timeBonus !== previous.timeBonus || state.user !== previous.user) sync();
  });
  sync();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    users -= 1;
    if (users === 0) {
      stopTimer();
      unsubscribe?.();
      unsubscribe = null;
    }
  };
}

/** Tests: back to no countdown at all. */
export function resetCountdown(): void {
  stopTimer();
  unsubscribe?.();
  unsubscribe = null;
  users = 0;
  countdown.set({ seconds: 0 });
}

const selectSeconds = (state: CountdownState) => state.seconds;

/** React hook: the seconds left, re-rendered once per second while the bonus runs. */
export function useCountdown(): number {
  // A layout effect: the first paint already shows the remaining time, not 00:00:00.
  useLayoutEffect(() => acquireCountdown(), []);
  return useStore(countdown, selectSeconds);
}
