/**
 * Periodic refresh of the member's state (spec §7, §9 "Refresh of user, chats, likes: 60 s,
 * or 5 min when push subscribed; first refresh after 5 s").
 *
 * For a logged-in member (appStore.user, filled from #app-state): GET /api/user.php
 * (-> appStore.user), GET /api/likes.php (-> appStore.totals.newLikes = num_new) and
 * GET /api/chats.php (-> appStore.chats and totals.unreadMessages), first
 * 5 s after start, then every 60 s, or every 5 minutes while appStore.push.subscribed.
 * Errors are silent (spec §8 "badge update failure: silent"); the next tick tries again.
 * Stops when the member is logged out (appStore.user becomes null, or user.php answers 403
 * authentication_required). While the page is hidden nothing runs; on becoming visible it
 * refreshes once and goes on with the normal interval. A push (the window's "push-message"
 * event, lib/push.ts) refreshes at once; when appStore.push.subscribed changes (the base
 * entry learns it on load, or the member turns push on) the waiting refresh is timed anew.
 *
 * The chat list's part (appStore.chats: setChats, reloadChats, removeChat) is lib/chats.ts,
 * which the chat island imports without the timer code here (only a member's page code,
 * base/member.ts, starts the refresh).
 *
 * The counts go through appStore.set({totals}), so the top-bar badges, the app badge and
 * every island see the same numbers (the base entry calls updateAppBadge/renderBadges).
 */
import { ApiError, get } from "./api";
import { CHATS_URL, reloadChats } from "./chats";
import { PUSH_MESSAGE_EVENT } from "./push";
import { appStore, isObject, type AppState, type AppUser, type Store } from "./store";

// The chat list's part (the chats island uses it without the periodic refresh): lib/chats.ts.
export { CHATS_URL, reloadChats, removeChat, setChats } from "./chats";

export const FIRST_REFRESH_MS = 5_000;
export const REFRESH_INTERVAL_MS = 60_000;
export const PUSH_REFRESH_INTERVAL_MS = 5 * 60_000;

export const USER_URL = "/api/user.php";
export const LIKES_URL = "/api/likes.php";

/** Delay before the next refresh: 5 s for the first, then 60 s, or 5 min with push. */
export function nextDelay(isFirst: boolean, pushSubscribed: boolean): number {
  if (isFirst) return FIRST_REFRESH_MS;
  return pushSubscribed ? PUSH_REFRESH_INTERVAL_MS : REFRESH_INTERVAL_MS;
}

/** Sets totals.newLikes (only when it changed, so listeners are not woken for nothing). */
export function setNewLikes(count: unknown, store: Store<AppState> = appStore): void {
  const n = Math.max(0, Math.floor(Number(count)));
  if (!Number.isFinite(n)) return;
  store.set((state) => (state.totals.newLikes === n ? {} : { totals: { ...state.totals, newLikes: n } }));
}

/** GET /api/likes.php and copy num_new into appStore.totals.newLikes. Throws on errors. */
export async function reloadLikes(store: Store<AppState> = appStore, url: string = LIKES_URL): Promise<void> {
  const data = await get<unknown>(url, { retries: 0 });
  if (isObject(data) && typeof data.num_new === "number") setNewLikes(data.num_new, store);
}

export interface RefreshOptions {
  store?: Store<AppState>;
  userUrl?: string;
  likesUrl?: string;
  chatsUrl?: string;
  doc?: Document;
  /** Where the "push-message" events come (window). */
  win?: Window;
}

/** One refresh of user, likes and chats; every error is swallowed. */
export async function refreshOnce(options: RefreshOptions = {}): Promise<void> {
  const store = options.store ?? appStore;
  const userUrl = options.userUrl ?? USER_URL;
  const likesUrl = options.likesUrl ?? LIKES_URL;
  await Promise.all([
    get<unknown>(userUrl, { retries: 0 }).then(
      (data) => {
        if (!store.get().user) return; // logged out meanwhile
        if (isObject(data) && isObject(data.user)) store.set({ user: data.user as AppUser });
      },
      (err: unknown) => {
        // The session has ended: the member is logged out and the refresh stops.
        if (err instanceof ApiError && err.status === 403 && err.code === "authentication_required") {
          store.set({ user: null });
        }
      },
    ),
    reloadLikes(store, likesUrl).catch(() => {}),
    reloadChats(store, options.chatsUrl ?? CHATS_URL).catch(() => {}),
  ]);
}

/**
 * Starts the periodic refresh; returns a stop function. Does nothing until a member is
 * logged in, and stops (timers cleared) when appStore.user becomes null.
 */
export function startRefresh(options: RefreshOptions = {}): () => void {
  const store = options.store ?? appStore;
  const doc = options.doc ?? document;
  const win = options.win ?? (typeof window !== "undefined" ? window : null);
  let timer: ReturnType<typeof setTimeout> | null = null;
  let first = true;
  let stopped = false;
  let running = false;
  // A push came while a refresh was running (its answers may predate the push).
  let again = false;

  const clear = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };

  const hidden = () => doc.visibilityState === "hidden";

  const schedule = () => {
    clear();
    if (stopped || !store.get().user || hidden()) return;
    const delay = nextDelay(first, store.get().push.subscribed);
    timer = setTimeout(() => {
      timer = null;
      void tick();
    }, delay);
  };

  const tick = async () => {
    if (stopped || running || !store.get().user) return;
    running = true;
    first = false;
    try {
      do {
        again = false;
        await refreshOnce({ ...options, store });
      } while (again && !stopped && store.get().user);
    } finally {
      running = false;
    }
    schedule();
  };

  // A push says something changed: refresh now (not while hidden: becoming visible does).
  const onPush = () => {
    if (stopped || !store.get().user || hidden()) return;
    if (running) {
      again = true;
      return;
    }
    clear();
    void tick();
  };

  const onVisibility = () => {
    if (hidden()) {
      clear(); // paused
    } else if (!stopped && store.get().user && timer === null && !running) {
      void tick(); // once on becoming visible, then the normal interval
    }
  };

  const unsubscribe = store.subscribe((state, previous) => {
    if (state.push.subscribed !== previous.push.subscribed && timer !== null) schedule();
    if (state.user === previous.user) return;
    if (!state.user) {
      clear();
      first = true;
    } else if (!previous.user) {
      schedule();
    }
  });

  doc.addEventListener("visibilitychange", onVisibility);
  win?.addEventListener(PUSH_MESSAGE_EVENT, onPush);
  schedule();

  return () => {
    stopped = true;
    clear();
    unsubscribe();
    doc.removeEventListener("visibilitychange", onVisibility);
    win?.removeEventListener(PUSH_MESSAGE_EVENT, onPush);
  };
}
