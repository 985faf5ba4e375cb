/**
 * "Use my location" (spec §3, §7, §9): the device's position, once, on a tap, turned into
 * a town by GET /api/geocode.php. Loaded with import() by lib/LocationButton.tsx when the
 * member taps, so no page carries it up front.
 *
 * - The browser is asked with a 10 s timeout and accepts a position up to an hour old.
 * - Only the answer (country, region, town) and the permission are kept, in the app store
 *   and in localStorage, for at most an hour; the coordinates are never stored. A second
 *   tap within the hour uses the kept town without asking the browser again.
 * - Every failure (refused, timeout, no position, network, no town) resolves to a reason;
 *   nothing throws, so the form keeps what the member chose by hand.
 */
import { ApiError, get } from "./api";
import { appStore, isObject, type GeolocationState, type GeoPermission, type GeoPlace } from "./store";

export const GEOCODE_URL = "/api/geocode.php";
export const GEOLOCATION_STORAGE_KEY = "geolocation";
/** Spec §9 "geolocation cache max age 1 hour". */
export const GEOLOCATION_MAX_AGE_MS = 60 * 60 * 1000;
export const GEOLOCATION_TIMEOUT_MS = 10_000;

export type LocateFailure = "unsupported" | "denied" | "timeout" | "unavailable" | "not_found" | "network";

export type LocateResult = { place: GeoPlace; cached: boolean } | { place: null; reason: LocateFailure };

export interface LocateDeps {
  geolocation?: Geolocation | null;
  storage?: Storage | null;
  now?: () => number;
  /** GET /api/geocode.php; returns the parsed body (a town, or false). */
  geocode?: (lat: number, lon: number) => Promise<unknown>;
}

/** country, region and city as strings, nothing else; null unless country and city are given. */
export function parsePlace(value: unknown): GeoPlace | null {
  if (!isObject(value)) return null;
  const { country, region, city } = value;
  if (typeof country !== "string" || !country || typeof city !== "string" || !city) return null;
  return { country, region: typeof region === "string" ? region : "", city };
}

function parseState(value: unknown): GeolocationState | null {
  if (!isObject(value)) return null;
  const { permission, geocode, at } = value;
  if (typeof at !== "number" || !Number.isFinite(at)) return null;
  if (permission !== "unknown" && permission !== "granted" && permission !== "denied") return null;
  return { permission, geocode: geocode === false ? false : parsePlace(geocode), at };
}

/** Whether a state was made less than an hour ago (a clock set back makes it stale). */
export function isFresh(state: GeolocationState | null | undefined, now: number): state is GeolocationState {
  return !!state && state.at <= now && now - state.at < GEOLOCATION_MAX_AGE_MS;
}

function defaultStorage(): Storage | null {
  try {
    return typeof window !== "undefined" ? window.localStorage : null;
  } catch {
    return null; // storage blocked
  }
}

/** The kept state when it is less than an hour old; an older one is removed. */
export function readStoredGeolocation(storage: Storage | null = defaultStorage(), now = Date.now()): GeolocationState | null {
  if (!storage) return null;
  try {
    const raw = storage.getItem(GEOLOCATION_STORAGE_KEY);
    if (!raw) return null;
    const state = parseState(JSON.parse(raw));
    if (isFresh(state, now)) return state;
    storage.removeItem(GEOLOCATION_STORAGE_KEY);
  } catch {
    // Broken or blocked: as if nothing was kept.
  }
  return null;
}

/** Keeps the state in the store and in storage: the town's country, region and name only. */
export function keepGeolocation(state: GeolocationState, storage: Storage | null = defaultStorage()): GeolocationState {
  const geocode = state.geocode ? { country: state.geocode.country, region: state.geocode.region, city: state.geocode.city } : state.geocode;
  const kept: GeolocationState = { permission: state.permission, geocode, at: state.at };
  appStore.set({ geolocation: kept });
  try {
    storage?.setItem(GEOLOCATION_STORAGE_KEY, JSON.stringify(kept));
  } catch {
    // Full or blocked: the store still has it for this page.
  }
  return kept;
}

/** The position, or the reason the browser gave none. */
export function currentPosition(
  geolocation: Geolocation,
): Promise<{ lat: number; lon: number } | { reason: "denied" | "timeout" | "unavailable" }> {
  return new Promise((resolve) => {
    try {
      geolocation.getCurrentPosition(
        (position) => resolve({ lat: position.coords.latitude, lon: position.coords.longitude }),
        (error) => resolve({ reason: error.code === 1 ? "denied" : error.code === 3 ? "timeout" : "unavailable" }),
        { enableHighAccuracy: false, timeout: GEOLOCATION_TIMEOUT_MS, maximumAge: GEOLOCATION_MAX_AGE_MS },
      );
    } catch {
      resolve({ reason: "unavailable" });
    }
  });
}

/** Town level is all the server needs: about 100 m, so the exact spot never leaves the device. */
const rounded = (value: number) => Math.round(value * 1000) / 1000;

function defaultGeocode(lat: number, lon: number): Promise<unknown> {
  // One retry: the member is waiting, and the form works without the answer.
  return get(GEOCODE_URL, { params: { lat: rounded(lat), lon: rounded(lon) }, retries: 1 });
}

/** The member's town: the kept one when less than an hour old, else from the device and the server. */
export async function locate(deps: LocateDeps = {}): Promise<LocateResult> {
  const now = deps.now ?? Date.now;
  const storage = deps.storage === undefined ? defaultStorage() : deps.storage;
  const geolocation =
    deps.geolocation === undefined ? (typeof navigator !== "undefined" ? navigator.geolocation : null) : deps.geolocation;

  const inStore = appStore.get().geolocation;
  const known = isFresh(inStore, now()) ? inStore : readStoredGeolocation(storage, now());
  if (known?.geocode) {
    if (known !== inStore) appStore.set({ geolocation: known });
    return { place: known.geocode, cached: true };
  }
  if (!geolocation) return { place: null, reason: "unsupported" };

  const keep = (permission: GeoPermission, geocode: GeoPlace | false | null) =>
    keepGeolocation({ permission, geocode, at: now() }, storage);

  const position = await currentPosition(geolocation);
  if ("reason" in position) {
    keep(position.reason === "denied" ? "denied" : (known?.permission ?? "unknown"), null);
    return { place: null, reason: position.reason };
  }
  let answer: unknown;
  try {
    answer = await (deps.geocode ?? defaultGeocode)(position.lat, position.lon);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) answer = false;
    else {
      keep("granted", null);
      return { place: null, reason: "network" };
    }
  }
  const place = parsePlace(answer);
  keep("granted", place ?? false);
  return place ? { place, cached: false } : { place: null, reason: "not_found" };
}
