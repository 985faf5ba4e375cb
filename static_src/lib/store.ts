/**
 * One small shared store for state that several islands read (top-bar badges, the current
 * user, the time bonus, push state...).
 *
 * It is a module singleton: every entry (base and islands) imports this module, so esbuild's
 * code splitting puts it in one shared chunk and the browser evaluates it once per page.
 */
import { useCallback, useSyncExternalStore } from "react";

export type Listener<T> = (state: T, previous: T) => void;
export type Updater<T> = Partial<T> | ((state: T) => Partial<T>);

export interface Store<T extends object> {
  get(): T;
  set(update: Updater<T>): void;
  subscribe(listener: Listener<T>): () => void;
}

export function createStore<T extends object>(initial: T): Store<T> {
  let state = initial;
  const listeners = new Set<Listener<T>>();

  return {
    get: () => state,
    set(update) {
      const partial = typeof update === "function" ? update(state) : update;
      if (!partial) return;
      let changed = false;
      for (const key of Object.keys(partial) as (keyof T)[]) {
        if (!Object.is(state[key], partial[key])) {
          changed = true;
          break;
        }
      }
      if (!changed) return;
      const previous = state;
      state = { ...state, ...partial };
      for (const listener of [...listeners]) listener(state, previous);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/**
 * React hook: re-renders the component when the selected slice changes (compared with
 * Object.is, so select primitives or objects that the store replaces, not new literals).
 */
export function useStore<T extends object, S>(store: Store<T>, selector: (state: T) => S): S {
  const getSnapshot = useCallback(() => selector(store.get()), [store, selector]);
  return useSyncExternalStore(store.subscribe, getSnapshot, getSnapshot);
}

// ---------------------------------------------------------------------------------------
// The application store
// ---------------------------------------------------------------------------------------

/** The logged-in member as the server hands it over (GET /api/user.php "user"). */
export interface AppUser {
  id: number | string;
  [key: string]: unknown;
}

/** Site settings (GET /api/settings.php). */
export type AppSettings = Record<string, unknown>;

export interface Totals {
  unreadMessages: number;
  newLikes: number;
}

export interface TimeBonus {
  /** Epoch milliseconds (by this browser's clock). */
  expiresAt: number;
  code: string;
  /** Discount in percent (25). */
  percentage?: number;
  /** The time-bonus modal is open. */
  isVisible: boolean;
}

export type PushPermission = "unsupported" | "unknown" | "granted" | "denied";

/** The last push the page heard of (spec §3 "push ... last message"). */
export interface PushLastMessage {
  /** The notice's id ("" when the push had none). */
  id: string;
  kind: string;
  /** Epoch milliseconds when this page (or an earlier one of this tab) received it. */
  at: number;
}

export interface PushState {
  capable: boolean;
  permission: PushPermission;
  subscribed: boolean;
  /** Kept in sessionStorage too (PUSH_LAST_MESSAGE_KEY), so a reload still knows it. */
  lastMessage?: PushLastMessage | null;
}

export const PUSH_LAST_MESSAGE_KEY = "push-last-message";

/** {id, kind, at} from sessionStorage (or anything else), or null. */
export function parsePushLastMessage(value: unknown): PushLastMessage | null {
  if (typeof value !== "object" || value === null) return null;
  const { id, kind, at } = value as Record<string, unknown>;
  if (typeof id !== "string" || typeof kind !== "string" || typeof at !== "number" || !Number.isFinite(at)) {
    return null;
  }
  return { id, kind, at };
}

/** The last push message this tab stored, or null (nothing, broken, storage blocked). */
export function readPushLastMessage(storage?: Storage): PushLastMessage | null {
  try {
    const raw = (storage ?? window.sessionStorage).getItem(PUSH_LAST_MESSAGE_KEY);
    return raw ? parsePushLastMessage(JSON.parse(raw)) : null;
  } catch {
    return null;
  }
}

/** The member's last opened chat (spec §3; GET /api/chats.php "last_opened", the chat list
 * page's props "lastOpened"; docs/chat.md): conversation and profile ids, when (ISO 8601). */
export interface LastOpenedChat {
  conversation: number;
  profile: number;
  at: string;
}

/**
 * A profile's main photo (spec §3 "main_image (may be null; has a match path)"): the square
 * thumbnail the lists show and the picture the match modal shows large (docs/decisions.md,
 * "The match modal's photo").
 */
export interface MainImage {
  thumb_filename: string;
  match_filename: string;
}

/** One chat of the member's list (GET /api/chats.php "chats"; docs/chat.md). */
export interface ChatSummary {
  conversation: number;
  profile: number;
  name: string;
  main_image: MainImage | null;
  is_fictional?: boolean;
  last_message: {
    id: number;
    kind: string;
    text: string;
    gift_emoji: string | null;
    /** A gift's name in the reader's language (absent from older answers). */
    gift_name?: string | null;
    mine: boolean;
    created: string | null;
    read: boolean;
  } | null;
  num_unread_messages: number;
  updated: string | null;
}

/** A town as GET /api/geocode.php answers it (spec §7): city level only, never coordinates. */
export interface GeoPlace {
  country: string;
  region: string;
  city: string;
}

export type GeoPermission = "unknown" | "granted" | "denied";

/** "Use my location" (spec §3 "geolocation permission and geocode"): filled in by
 * lib/geolocation.ts on a tap (not on load) and kept in localStorage for an hour. */
export interface GeolocationState {
  permission: GeoPermission;
  /** The last answer: a town, false when none was found, null before any. */
  geocode: GeoPlace | false | null;
  /** Epoch milliseconds of the answer (or of the refusal). */
  at: number;
}

export interface AppState {
  user: AppUser | null;
  /** The member's chats once loaded (the chat pages, the periodic refresh); null before. */
  chats: ChatSummary[] | null;
  /** Set by the chat list page (islands/Chat/lastOpened.ts): null when there is none. */
  lastOpenedChat?: LastOpenedChat | null;
  settings: AppSettings | null;
  totals: Totals;
  timeBonus: TimeBonus | null;
  paymentCountry: string | null;
  push: PushState;
  /** Absent until the member taps "Use my location". */
  geolocation?: GeolocationState;
}

export function initialAppState(): AppState {
  return {
    user: null,
    chats: null,
    settings: null,
    totals: { unreadMessages: 0, newLikes: 0 },
    timeBonus: null,
    paymentCountry: null,
    push: { capable: false, permission: "unknown", subscribed: false },
  };
}

/** Id of the optional JSON script the base layout may render with the initial state. */
export const APP_STATE_SCRIPT_ID = "app-state";

/** A plain object (not null, not an array): what a JSON answer's fields are read from. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads `<script type="application/json" id="app-state">` (rendered by the base layout with
 * json_script) and returns the keys of AppState it holds. Unknown keys are ignored and a
 * broken script is ignored (the page still works with the defaults).
 */
export function readAppStateFromPage(doc: Document = document): Partial<AppState> {
  const el = doc.getElementById(APP_STATE_SCRIPT_ID);
  if (!el?.textContent) return {};
  let data: unknown;
  try {
    data = JSON.parse(el.textContent);
  } catch {
    console.error(`#${APP_STATE_SCRIPT_ID} does not hold valid JSON`);
    return {};
  }
  if (!isObject(data)) return {};
  const defaults = initialAppState();
  const out: Partial<AppState> = {};
  if ("user" in data) out.user = isObject(data.user) ? (data.user as AppUser) : null;
  if ("settings" in data) out.settings = isObject(data.settings) ? data.settings : null;
  if (isObject(data.totals)) {
    out.totals = {
      unreadMessages: Number(data.totals.unreadMessages) || 0,
      newLikes: Number(data.totals.newLikes) || 0,
    };
  }
  if ("timeBonus" in data) out.timeBonus = parseTimeBonus(data.timeBonus);
  if ("paymentCountry" in data) {
    out.paymentCountry = typeof data.paymentCountry === "string" ? data.paymentCountry : null;
  }
  if (isObject(data.push)) out.push = { ...defaults.push, ...(data.push as Partial<PushState>) };
  return out;
}

/**
 * The time bonus as the server hands it over ({code, percentage, expiresAt, secondsLeft,
 * isVisible}). secondsLeft wins over expiresAt, so a wrong clock in the browser does not
 * shift the countdown. null when it is missing, broken or already over.
 */
export function parseTimeBonus(value: unknown, now: number = Date.now()): TimeBonus | null {
  if (!isObject(value) || typeof value.code !== "string" || !value.code) return null;
  const { secondsLeft, percentage } = value;
  const expiresAt = typeof secondsLeft === "number" ? now + secondsLeft * 1000 : Number(value.expiresAt);
  if (!Number.isFinite(expiresAt) || expiresAt <= now) return null;
  return {
    code: value.code,
    expiresAt,
    ...(typeof percentage === "number" && Number.isFinite(percentage) ? { percentage } : {}),
    isVisible: value.isVisible === true,
  };
}

function createAppStore(): Store<AppState> {
  const store = createStore<AppState>(initialAppState());
  if (typeof document !== "undefined") store.set(readAppStateFromPage(document));
  if (typeof window !== "undefined") {
    const lastMessage = readPushLastMessage();
    if (lastMessage) store.set((state) => ({ push: { ...state.push, lastMessage } }));
  }
  // Logging out clears the time bonus (spec §4 "Login state changes load or clear the time bonus").
  store.subscribe((state) => {
    if (!state.user && state.timeBonus) store.set({ timeBonus: null });
  });
  return store;
}

/** The one store shared by all islands of a page. */
export const appStore: Store<AppState> = createAppStore();

// ---------------------------------------------------------------------------------------
// App badge (spec §4 "App badge")
// ---------------------------------------------------------------------------------------

const TITLE_COUNT_PREFIX = /^\(\d+\+?\)\s/;

type BadgeNavigator = Navigator & {
  setAppBadge?: (contents?: number) => Promise<void>;
  clearAppBadge?: () => Promise<void>;
};

/**
 * App badge = unread messages + new likes, where the device supports it; the page title is
 * prefixed with "(N) " when N > 0 and the prefix is removed otherwise. Badge failures are
 * silent (spec §8).
 */
export function updateAppBadge(totals: Totals): number {
  const count = Math.max(0, (totals.unreadMessages || 0) + (totals.newLikes || 0));
  const nav = (typeof navigator !== "undefined" ? navigator : undefined) as BadgeNavigator | undefined;
  try {
    if (count > 0 && typeof nav?.setAppBadge === "function") {
      nav.setAppBadge(count)?.catch?.(() => {});
    } else if (count === 0 && typeof nav?.clearAppBadge === "function") {
      nav.clearAppBadge()?.catch?.(() => {});
    } else if (count === 0 && typeof nav?.setAppBadge === "function") {
      nav.setAppBadge(0)?.catch?.(() => {});
    }
  } catch {
    // Unsupported or refused: silent.
  }
  if (typeof document !== "undefined") {
    const bare = document.title.replace(TITLE_COUNT_PREFIX, "");
    document.title = count > 0 ? `(${count}) ${bare}` : bare;
  }
  return count;
}
