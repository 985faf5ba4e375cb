import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { ApiError, configureApi, del, get, patch, post, put, request, resetApiConfig, sendPageHiddenBeacon } from "../api";
import { appStore, initialAppState } from "../store";

function json(status: number, data: unknown): Response {
  return new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
}

function apiError(status: number, code: string, message: string): Response {
  return json(status, { error: { code, message } });
}

type FetchMock = ReturnType<typeof vi.fn<typeof fetch>>;

let fetchMock: FetchMock;
let reload: ReturnType<typeof vi.fn>;

function callUrl(i: number): string {
  return String(fetchMock.mock.calls[i]![0]);
}
function callInit(i: number): RequestInit {
  return fetchMock.mock.calls[i]![1]!;
}
function callHeaders(i: number): Headers {
  return new Headers(callInit(i).headers);
}

beforeEach(() => {
  resetApiConfig();
  reload = vi.fn();
  fetchMock = vi.fn<typeof fetch>();
  vi.stubGlobal("fetch", fetchMock);
  configureApi({ reload });
  appStore.set(initialAppState());
  document.head.innerHTML = '<meta name="csrf-token" content="csrf-abc123">';
});

afterEach(() => {
  vi.useRealTimers();
  document.head.innerHTML = "";
});

describe("request basics", () => {
  it("sends JSON with the CSRF token, same-origin credentials and parses the JSON answer", async () => {
    fetchMock.mockResolvedValueOnce(json(200, { ok: true, chats: [1, 2] }));

    const data = await post<{ ok: boolean; chats: number[] }>("/api/chats.php", { conversation: 7 });

    expect(data).toEqual({ ok: true, chats: [1, 2] });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(callUrl(0)).toBe("/api/chats.php");
    const init = callInit(0);
    expect(init.method).toBe("POST");
    expect(init.credentials).toBe("same-origin");
    expect(init.body).toBe('{"conversation":7}');
    const headers = callHeaders(0);
    expect(headers.get("X-CSRFToken")).toBe("csrf-abc123");
    expect(headers.get("Content-Type")).toBe("application/json");
    expect(headers.get("Accept")).toBe("application/json");
  });

  it("omits the CSRF header when the page has no csrf-token meta tag", async () => {
    document.head.innerHTML = "";
    fetchMock.mockResolvedValueOnce(json(200, {}));
    await get("/api/chats.php");
    expect(callHeaders(0).has("X-CSRFToken")).toBe(false);
  });

  it("appends params to the query string, keeping what is already there", async () => {
    fetchMock.mockResolvedValueOnce(json(200, {}));
    await get("/api/geocode.php?x=1", { params: { lat: 52.1, lon: 4.3, skip: undefined, none: null, tag: ["a", "b"] } });
    expect(callUrl(0)).toBe("/api/geocode.php?x=1&lat=52.1&lon=4.3&tag=a&tag=b");
  });

  it("uses the right methods in the helpers and returns null for 204", async () => {
    fetchMock.mockImplementation(async () => new Response(null, { status: 204 }));
    await expect(put("/api/user.php", { language: "fr" })).resolves.toBeNull();
    await del("/api/chat.php", { conversation: 3 });
    await get("/api/likes.php");
    expect(fetchMock.mock.calls.map((c) => c[1]!.method)).toEqual(["PUT", "DELETE", "GET"]);
    expect(callInit(1).body).toBe('{"conversation":3}');
    expect(callInit(2).body).toBeUndefined();
  });

  it("does not JSON-encode FormData (photo upload)", async () => {
    fetchMock.mockResolvedValueOnce(json(200, {}));
    const form = new FormData();
    form.append("name", "x");
    await post("/api/photos.php", form);
    expect(callInit(0).body).toBe(form);
    expect(callHeaders(0).has("Content-Type")).toBe(false);
  });
});

describe("X-Request-Type header", () => {
  it("is 'client' on URLs whose path ends in user.php", async () => {
    fetchMock.mockImplementation(async () => json(200, { user: null }));
    await get("/api/user.php");
    await post("/api/user.php?push=1", { subscription: {} });
    expect(callHeaders(0).get("X-Request-Type")).toBe("client");
    expect(callHeaders(1).get("X-Request-Type")).toBe("client");
  });

  it("is absent on other URLs, even when user.php appears in the query", async () => {
    fetchMock.mockImplementation(async () => json(200, {}));
    await get("/api/chats.php");
    await get("/api/likes.php", { params: { next: "user.php" } });
    await get("/api/superuser.phpx");
    expect(callHeaders(0).has("X-Request-Type")).toBe(false);
    expect(callHeaders(1).has("X-Request-Type")).toBe(false);
    expect(callHeaders(2).has("X-Request-Type")).toBe(false);
  });
});

describe("errors", () => {
  it("turns the JSON error body into an ApiError with status, code and message", async () => {
    fetchMock.mockResolvedValueOnce(apiError(402, "not_enough_credits", "Vous n'avez pas assez de crédits"));
    const err = await get("/api/chat.php").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 402, code: "not_enough_credits", message: "Vous n'avez pas assez de crédits" });
  });

  it("falls back to code 'error' and the configured message when the body is not the error shape", async () => {
    configureApi({ strings: { error: "Une erreur est survenue." } });
    fetchMock.mockResolvedValueOnce(new Response("<html>Bad gateway</html>", { status: 400 }));
    await expect(get("/api/chats.php")).rejects.toMatchObject({
      status: 400,
      code: "error",
      message: "Une erreur est survenue.",
    });
  });

  it("uses 'An error has occurred.' by default", async () => {
    fetchMock.mockResolvedValueOnce(json(422, { detail: "x" }));
    await expect(get("/api/chats.php")).rejects.toMatchObject({ code: "error", message: "An error has occurred." });
  });

  it("never retries a 4xx", async () => {
    vi.useFakeTimers();
    fetchMock.mockResolvedValue(apiError(404, "not_found", "Not found"));
    const result = get("/api/chats.php").catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await result).toMatchObject({ status: 404, code: "not_found" });
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});

describe("retries", () => {
  it("retries a 5xx 5 times with delays of 500, 1000, 2000, 4000 and 8000 ms, then throws the last error", async () => {
    vi.useFakeTimers();
    fetchMock.mockImplementation(async () => apiError(503, "unavailable", "Try later"));
    const result = request("GET", "/api/chats.php").catch((e: unknown) => e);

    await vi.advanceTimersByTimeAsync(0);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    let expected = 1;
    for (const delay of [500, 1000, 2000, 4000, 8000]) {
      await vi.advanceTimersByTimeAsync(delay - 1);
      expect(fetchMock).toHaveBeenCalledTimes(expected);
      await vi.advanceTimersByTimeAsync(1);
      expected += 1;
      expect(fetchMock).toHaveBeenCalledTimes(expected);
    }
    const err = await result;
    expect(fetchMock).toHaveBeenCalledTimes(6);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, code: "unavailable", message: "Try later" });
    await vi.advanceTimersByTimeAsync(100_000);
    expect(fetchMock).toHaveBeenCalledTimes(6);
  });

  it("retries network failures and resolves once the server answers", async () => {
    vi.useFakeTimers();
    fetchMock
      .mockRejectedValueOnce(new TypeError("Failed to fetch"))
      .mockRejectedValueOnce(new TypeError("Failed to fetch"))
      .mockResolvedValueOnce(json(200, { chats: [] }));
    const result = get("/api/chats.php");
    await vi.advanceTimersByTimeAsync(500);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(999);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchMock).toHaveBeenCalledTimes(3);
    await expect(result).resolves.toEqual({ chats: [] });
  });

  it("gives up after 5 retries of network failures with a network_error", async () => {
    vi.useFakeTimers();
    configureApi({ baseDelayMs: 10, strings: { networkError: "Réseau indisponible" } });
    fetchMock.mockRejectedValue(new TypeError("Failed to fetch"));
    const result = get("/api/chats.php").catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10 + 20 + 40 + 80 + 160);
    const err = await result;
    expect(fetchMock).toHaveBeenCalledTimes(6);
    expect(err).toMatchObject({ status: 0, code: "network_error", message: "Réseau indisponible" });
  });

  it("can be turned off per request", async () => {
    fetchMock.mockResolvedValue(apiError(500, "server_error", "Oops"));
    await expect(post("/api/chat.php", { text: "hi" }, { retries: 0 })).rejects.toMatchObject({ status: 500 });
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it("stops retrying when the request is aborted", async () => {
    vi.useFakeTimers();
    fetchMock.mockResolvedValue(apiError(502, "bad_gateway", "x"));
    const controller = new AbortController();
    const result = get("/api/chats.php", { signal: controller.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    const err = await result;
    expect((err as Error).name).toBe("AbortError");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});

describe("authentication_required", () => {
  const authError = () => apiError(403, "authentication_required", "Please log in");

  it("logs a logged-in user out on a non-user.php URL: GET /api/logout.php, user null, reload", async () => {
    appStore.set({ user: { id: 42, name: "Anna" } });
    fetchMock.mockResolvedValueOnce(authError()).mockResolvedValueOnce(json(200, {}));

    await expect(get("/api/chats.php")).rejects.toMatchObject({ status: 403, code: "authentication_required" });

    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(callUrl(1)).toBe("/api/logout.php");
    expect(callInit(1).method).toBe("GET");
    expect(appStore.get().user).toBeNull();
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("still logs out (once, no retries) when the logout call itself fails", async () => {
    vi.useFakeTimers();
    appStore.set({ user: { id: 42 } });
    fetchMock.mockResolvedValueOnce(authError()).mockRejectedValue(new TypeError("Failed to fetch"));
    const result = get("/api/likes.php").catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await result).toMatchObject({ code: "authentication_required" });
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(appStore.get().user).toBeNull();
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("does not log out on user.php", async () => {
    appStore.set({ user: { id: 42 } });
    fetchMock.mockResolvedValueOnce(authError());
    await expect(get("/api/user.php")).rejects.toMatchObject({ code: "authentication_required" });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(appStore.get().user).toEqual({ id: 42 });
    expect(reload).not.toHaveBeenCalled();
  });

  it("does nothing more when nobody is logged in", async () => {
    fetchMock.mockResolvedValueOnce(authError());
    await expect(get("/api/chats.php")).rejects.toMatchObject({ code: "authentication_required" });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(reload).not.toHaveBeenCalled();
  });

  it("does not log out on other 403 codes", async () => {
    appStore.set({ user: { id: 42 } });
    fetchMock.mockResolvedValueOnce(apiError(403, "premium_required", "Premium only"));
    await expect(get("/api/chats.php")).rejects.toMatchObject({ code: "premium_required" });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(appStore.get().user).toEqual({ id: 42 });
  });
});

describe("sendPageHiddenBeacon", () => {
  afterEach(() => {
    delete (navigator as { sendBeacon?: unknown }).sendBeacon;
  });

  it("posts an empty JSON body to /api/page-hidden.php", async () => {
    const sendBeacon = vi.fn(() => true);
    Object.defineProperty(navigator, "sendBeacon", { value: sendBeacon, configurable: true, writable: true });

    expect(sendPageHiddenBeacon()).toBe(true);

    expect(sendBeacon).toHaveBeenCalledTimes(1);
    const [url, body] = sendBeacon.mock.calls[0] as unknown as [string, Blob];
    expect(url).toBe("/api/page-hidden.php");
    expect(body).toBeInstanceOf(Blob);
    expect(body.type).toBe("application/json");
    expect(await body.text()).toBe("{}");
  });

  it("returns false where sendBeacon is unsupported", () => {
    expect(sendPageHiddenBeacon()).toBe(false);
  });
});

describe("field errors", () => {
  it("keeps the messages per field of an error answer", async () => {
    fetchMock.mockResolvedValueOnce(
      json(400, {
        error: {
          code: "invalid",
          message: "Please check the fields marked in red.",
          fields: { email: ["Invalid email"], name: "Enter a name", junk: [1, null], empty: [] },
        },
      }),
    );
    const error = await post("/api/signup.php", {}).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).fields).toEqual({ email: ["Invalid email"], name: ["Enter a name"] });
  });

  it("has no field errors when the server sent none", async () => {
    fetchMock.mockResolvedValueOnce(apiError(409, "account_exists", "Please log in."));
    const error = (await post("/api/signup.php", {}).catch((err: unknown) => err)) as ApiError;
    expect(error.code).toBe("account_exists");
    expect(error.fields).toEqual({});
  });

  it("sends PATCH with a JSON body", async () => {
    fetchMock.mockResolvedValueOnce(json(200, { profile: {} }));
    await patch("/api/signup/profile.php", { city: "Leeds" });
    expect(callInit(0).method).toBe("PATCH");
    expect(callInit(0).body).toBe('{"city":"Leeds"}');
  });
});

describe("CSRF token rotation", () => {
  it("takes the new token from X-CSRF-Token and sends it on the next call", async () => {
    fetchMock.mockResolvedValueOnce(
      new Response(JSON.stringify({ user: { id: 1 } }), {
        status: 200,
        headers: { "Content-Type": "application/json", "X-CSRF-Token": "rotated-999" },
      }),
    );
    fetchMock.mockResolvedValueOnce(json(200, {}));

    await post("/api/user.php", { email: "a@example.com", password: "x" });
    await post("/api/chats.php", {});

    expect(document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')!.content).toBe("rotated-999");
    expect(callHeaders(1).get("X-CSRFToken")).toBe("rotated-999");
  });

  it("keeps the token when the answer carries none", async () => {
    fetchMock.mockResolvedValueOnce(json(200, {}));
    await get("/api/settings.php");
    expect(document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')!.content).toBe("csrf-abc123");
  });
});
