import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { ApiError, configureApi, resetApiConfig } from "../api";
import {
  GEOCODE_URL,
  GEOLOCATION_MAX_AGE_MS,
  GEOLOCATION_STORAGE_KEY,
  GEOLOCATION_TIMEOUT_MS,
  locate,
  parsePlace,
  readStoredGeolocation,
} from "../geolocation";
import { appStore, initialAppState } from "../store";

const AMSTERDAM = { country: "NL", region: "NL-NH", city: "Amsterdam" };
const T0 = 1_800_000_000_000;

type Outcome = { lat: number; lon: number } | { code: 1 | 2 | 3 };

/** A navigator.geolocation that answers each call with the next outcome. */
function fakeGeolocation(...outcomes: Outcome[]) {
  const getCurrentPosition = vi.fn((ok: PositionCallback, fail?: PositionErrorCallback | null, _options?: PositionOptions) => {
    const outcome = outcomes.shift() ?? { code: 2 };
    if ("code" in outcome) {
      fail?.({ code: outcome.code, message: "", PERMISSION_DENIED: 1, POSITION_UNAVAILABLE: 2, TIMEOUT: 3 } as GeolocationPositionError);
    } else {
      ok({ coords: { latitude: outcome.lat, longitude: outcome.lon, accuracy: 10 }, timestamp: T0 } as unknown as GeolocationPosition);
    }
  });
  return { getCurrentPosition, watchPosition: vi.fn(), clearWatch: vi.fn() } as unknown as Geolocation & {
    getCurrentPosition: typeof getCurrentPosition;
  };
}

function stored(): unknown {
  const raw = localStorage.getItem(GEOLOCATION_STORAGE_KEY);
  return raw ? JSON.parse(raw) : null;
}

let now = T0;
const clock = () => now;

beforeEach(() => {
  now = T0;
  localStorage.clear();
  appStore.set(initialAppState());
  appStore.set({ geolocation: undefined });
});

afterEach(() => {
  resetApiConfig();
});

describe("locate", () => {
  it("asks the device with a timeout and an hour's maximum age, then the server, and keeps the town", async () => {
    const geolocation = fakeGeolocation({ lat: 52.3702, lon: 4.8952 });
    const geocode = vi.fn().mockResolvedValue({ ...AMSTERDAM, extra: "ignored" });

    const result = await locate({ geolocation, geocode, now: clock });

    expect(result).toEqual({ place: AMSTERDAM, cached: false });
    expect(geocode).toHaveBeenCalledWith(52.3702, 4.8952);
    expect(geolocation.getCurrentPosition.mock.calls[0][2]).toMatchObject({
      timeout: GEOLOCATION_TIMEOUT_MS,
      maximumAge: GEOLOCATION_MAX_AGE_MS,
    });
    expect(GEOLOCATION_TIMEOUT_MS).toBe(10_000);
    expect(GEOLOCATION_MAX_AGE_MS).toBe(3_600_000);
    expect(appStore.get().geolocation).toEqual({ permission: "granted", geocode: AMSTERDAM, at: T0 });
    expect(stored()).toEqual({ permission: "granted", geocode: AMSTERDAM, at: T0 });
  });

  it("stores only the town: never the coordinates nor other fields of the answer", async () => {
    const geolocation = fakeGeolocation({ lat: 52.3702, lon: 4.8952 });
    const geocode = vi.fn().mockResolvedValue({ ...AMSTERDAM, lat: 52.37, lon: 4.89, distance_km: 1.2 });

    await locate({ geolocation, geocode, now: clock });

    const raw = localStorage.getItem(GEOLOCATION_STORAGE_KEY) ?? "";
    expect(raw).not.toMatch(/52\.3|4\.89|lat|lon|distance/);
    expect(Object.keys((stored() as { geocode: object }).geocode).sort()).toEqual(["city", "country", "region"]);
    expect(JSON.stringify(appStore.get().geolocation)).not.toMatch(/52\.3|4\.89|lat|lon/);
  });

  it("sends the server coordinates rounded to about 100 m", async () => {
    const fetchMock = vi.fn().mockResolvedValue(new Response(JSON.stringify(AMSTERDAM), { status: 200 }));
    configureApi({ fetch: fetchMock as unknown as typeof fetch });

    const result = await locate({ geolocation: fakeGeolocation({ lat: 52.370216, lon: 4.895168 }), now: clock });

    expect(result).toEqual({ place: AMSTERDAM, cached: false });
    const url = new URL(fetchMock.mock.calls[0][0] as string, "http://localhost/");
    expect(url.pathname).toBe(GEOCODE_URL);
    expect(url.searchParams.get("lat")).toBe("52.37");
    expect(url.searchParams.get("lon")).toBe("4.895");
  });

  it("a second tap within the hour uses the kept town without asking the device again", async () => {
    const geolocation = fakeGeolocation({ lat: 52.37, lon: 4.89 }, { lat: 48.85, lon: 2.35 });
    const geocode = vi.fn().mockResolvedValue(AMSTERDAM);
    await locate({ geolocation, geocode, now: clock });

    now = T0 + GEOLOCATION_MAX_AGE_MS - 1;
    const again = await locate({ geolocation, geocode, now: clock });

    expect(again).toEqual({ place: AMSTERDAM, cached: true });
    expect(geolocation.getCurrentPosition).toHaveBeenCalledTimes(1);
    expect(geocode).toHaveBeenCalledTimes(1);
  });

  it("uses the town kept by an earlier page (localStorage) within the hour", async () => {
    localStorage.setItem(GEOLOCATION_STORAGE_KEY, JSON.stringify({ permission: "granted", geocode: AMSTERDAM, at: T0 - 60_000 }));
    const geolocation = fakeGeolocation({ lat: 48.85, lon: 2.35 });

    const result = await locate({ geolocation, geocode: vi.fn(), now: clock });

    expect(result).toEqual({ place: AMSTERDAM, cached: true });
    expect(geolocation.getCurrentPosition).not.toHaveBeenCalled();
    expect(appStore.get().geolocation?.geocode).toEqual(AMSTERDAM);
  });

  it("after an hour asks the device and the server again", async () => {
    const geolocation = fakeGeolocation({ lat: 52.37, lon: 4.89 }, { lat: 48.85, lon: 2.35 });
    const paris = { country: "FR", region: "FR-IDF", city: "Paris" };
    const geocode = vi.fn().mockResolvedValueOnce(AMSTERDAM).mockResolvedValueOnce(paris);
    await locate({ geolocation, geocode, now: clock });

    now = T0 + GEOLOCATION_MAX_AGE_MS;
    const later = await locate({ geolocation, geocode, now: clock });

    expect(later).toEqual({ place: paris, cached: false });
    expect(geolocation.getCurrentPosition).toHaveBeenCalledTimes(2);
    expect(stored()).toEqual({ permission: "granted", geocode: paris, at: now });
  });

  it("a refusal is remembered as denied and gives no town", async () => {
    const geocode = vi.fn();

    const result = await locate({ geolocation: fakeGeolocation({ code: 1 }), geocode, now: clock });

    expect(result).toEqual({ place: null, reason: "denied" });
    expect(geocode).not.toHaveBeenCalled();
    expect(appStore.get().geolocation).toEqual({ permission: "denied", geocode: null, at: T0 });
    expect(stored()).toEqual({ permission: "denied", geocode: null, at: T0 });
  });

  it("a timeout and an unavailable position give their reasons", async () => {
    const geocode = vi.fn();
    expect(await locate({ geolocation: fakeGeolocation({ code: 3 }), geocode, now: clock })).toEqual({
      place: null,
      reason: "timeout",
    });
    expect(await locate({ geolocation: fakeGeolocation({ code: 2 }), geocode, now: clock })).toEqual({
      place: null,
      reason: "unavailable",
    });
    expect(geocode).not.toHaveBeenCalled();
    expect(appStore.get().geolocation?.permission).not.toBe("denied");
  });

  it("false from the server gives no town, is kept as false, and the next tap asks again", async () => {
    const geolocation = fakeGeolocation({ lat: 40, lon: -35 }, { lat: 52.37, lon: 4.89 });
    const geocode = vi.fn().mockResolvedValueOnce(false).mockResolvedValueOnce(AMSTERDAM);

    expect(await locate({ geolocation, geocode, now: clock })).toEqual({ place: null, reason: "not_found" });
    expect(appStore.get().geolocation).toEqual({ permission: "granted", geocode: false, at: T0 });
    expect(stored()).toEqual({ permission: "granted", geocode: false, at: T0 });

    expect(await locate({ geolocation, geocode, now: clock })).toEqual({ place: AMSTERDAM, cached: false });
    expect(geolocation.getCurrentPosition).toHaveBeenCalledTimes(2);
  });

  it("the server's 404 (no town near) is the same as false", async () => {
    const geocode = vi.fn().mockRejectedValue(new ApiError(404, "no_place", "No town was found near this location."));

    const result = await locate({ geolocation: fakeGeolocation({ lat: 40, lon: -35 }), geocode, now: clock });

    expect(result).toEqual({ place: null, reason: "not_found" });
    expect(appStore.get().geolocation?.geocode).toBe(false);
  });

  it("a network error gives no town and keeps no answer", async () => {
    const geocode = vi.fn().mockRejectedValue(new ApiError(0, "network_error", "An error has occurred."));

    const result = await locate({ geolocation: fakeGeolocation({ lat: 52.37, lon: 4.89 }), geocode, now: clock });

    expect(result).toEqual({ place: null, reason: "network" });
    expect(appStore.get().geolocation?.geocode).toBeNull();
  });

  it("a browser without geolocation is unsupported and nothing is asked", async () => {
    expect(await locate({ geolocation: null, geocode: vi.fn(), now: clock })).toEqual({
      place: null,
      reason: "unsupported",
    });
  });
});

describe("readStoredGeolocation", () => {
  it("removes a state older than an hour, from the future, or broken", () => {
    localStorage.setItem(GEOLOCATION_STORAGE_KEY, JSON.stringify({ permission: "granted", geocode: AMSTERDAM, at: T0 }));
    expect(readStoredGeolocation(localStorage, T0 + 1000)?.geocode).toEqual(AMSTERDAM);
    expect(readStoredGeolocation(localStorage, T0 + GEOLOCATION_MAX_AGE_MS)).toBeNull();
    expect(localStorage.getItem(GEOLOCATION_STORAGE_KEY)).toBeNull();

    localStorage.setItem(GEOLOCATION_STORAGE_KEY, JSON.stringify({ permission: "granted", geocode: AMSTERDAM, at: T0 + 5000 }));
    expect(readStoredGeolocation(localStorage, T0)).toBeNull();

    localStorage.setItem(GEOLOCATION_STORAGE_KEY, "{not json");
    expect(readStoredGeolocation(localStorage, T0)).toBeNull();
  });

  it("keeps only country, region and city of a stored town", () => {
    localStorage.setItem(
      GEOLOCATION_STORAGE_KEY,
      JSON.stringify({ permission: "granted", geocode: { ...AMSTERDAM, lat: 52.37 }, at: T0, lon: 4.89 }),
    );
    expect(readStoredGeolocation(localStorage, T0)).toEqual({ permission: "granted", geocode: AMSTERDAM, at: T0 });
  });
});

describe("parsePlace", () => {
  it("needs a country and a town", () => {
    expect(parsePlace(false)).toBeNull();
    expect(parsePlace(null)).toBeNull();
    expect(parsePlace({ country: "NL", region: "NL-NH" })).toBeNull();
    expect(parsePlace({ country: "NL", city: "Amsterdam" })).toEqual({ country: "NL", region: "", city: "Amsterdam" });
  });
});
