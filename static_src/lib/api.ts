/**
 * The one API client of all islands (spec §7, §8).
 *
 * - JSON in and out, cookies (credentials "same-origin").
 * - CSRF: header X-CSRFToken from <meta name="csrf-token" content="..."> of the base layout.
 * - "X-Request-Type: client" on requests whose URL path ends in user.php.
 * - Errors: the server answers {"error": {"code", "message", "fields"?}} with a 4xx/5xx status;
 *   they are thrown as ApiError(status, code, message, fields).
 * - Network failures and 5xx are retried 5 times with exponential delay (500 ms, doubling);
 *   4xx is never retried.
 * - A 403 "authentication_required" on a URL other than user.php logs the user out when the
 *   store has one: GET /api/logout.php, user set to null, page reloaded.
 */
import { appStore } from "./store";

/** Messages per form field, from the error body's "fields" ({"email": ["Invalid email"]}). */
export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: FieldErrors;

  constructor(status: number, code: string, message: string, fields: FieldErrors = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

/** The "fields" of an error body as {field: [messages]}; anything else is left out. */
export function parseFieldErrors(value: unknown): FieldErrors {
  const out: FieldErrors = {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) return out;
  for (const [key, messages] of Object.entries(value as Record<string, unknown>)) {
    const list = (Array.isArray(messages) ? messages : [messages]).filter(
      (m): m is string => typeof m === "string" && m !== "",
    );
    if (list.length) out[key] = list;
  }
  return out;
}

export interface ApiStrings {
  /** Fallback message when the server gave none. */
  error: string;
  /** Message of the error thrown when the server could not be reached at all. */
  networkError: string;
}

export interface ApiConfig {
  /** Retries after the first attempt, on network failures and 5xx. */
  retries: number;
  /** Delay before the first retry; doubles on each further retry. */
  baseDelayMs: number;
  strings: ApiStrings;
  /** Called after an automatic logout. Injectable for tests. */
  reload: () => void;
  /** The fetch to use (defaults to the global one at call time). */
  fetch?: typeof fetch;
  logoutUrl: string;
  pageHiddenUrl: string;
}

function defaultConfig(): ApiConfig {
  return {
    retries: 5,
    baseDelayMs: 500,
    strings: { error: "An error has occurred.", networkError: "An error has occurred." },
    reload: () => window.location.reload(),
    logoutUrl: "/api/logout.php",
    pageHiddenUrl: "/api/page-hidden.php",
  };
}

let config: ApiConfig = defaultConfig();

/** Changes the client's configuration (translated strings, retry timing, reload hook). */
export function configureApi(partial: Partial<Omit<ApiConfig, "strings">> & { strings?: Partial<ApiStrings> }): void {
  config = {
    ...config,
    ...partial,
    strings: { ...config.strings, ...(partial.strings ?? {}) },
  };
}

/** Back to the defaults (tests). */
export function resetApiConfig(): void {
  config = defaultConfig();
  loggingOut = false;
}

/** Id of the optional JSON script with the client's translated strings ({"error": ..., "networkError": ...}). */
export const API_STRINGS_SCRIPT_ID = "api-strings";

/** Reads the translated strings the base layout may render with json_script. */
export function configureApiFromPage(doc: Document = document): void {
  const el = doc.getElementById(API_STRINGS_SCRIPT_ID);
  if (!el?.textContent) return;
  try {
    const data: unknown = JSON.parse(el.textContent);
    if (typeof data !== "object" || data === null) return;
    const strings: Partial<ApiStrings> = {};
    for (const key of ["error", "networkError"] as const) {
      const value = (data as Record<string, unknown>)[key];
      if (typeof value === "string" && value) strings[key] = value;
    }
    configureApi({ strings });
  } catch {
    console.error(`#${API_STRINGS_SCRIPT_ID} does not hold valid JSON`);
  }
}

export type ParamValue = string | number | boolean | null | undefined;
export type Params = Record<string, ParamValue | ParamValue[]>;

export interface RequestOptions {
  /** Query parameters, appended to those already in the URL. null/undefined are left out. */
  params?: Params;
  /** JSON-serialised, unless it is FormData, Blob, URLSearchParams or a string. */
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Overrides config.retries for this call (e.g. 0 for a non-idempotent POST). */
  retries?: number;
}

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** The largest body sent with `keepalive` (browsers refuse more than 64 KB in flight). */
const KEEPALIVE_MAX = 60_000;

function currentHref(): string {
  return typeof window !== "undefined" ? window.location.href : "http://localhost/";
}

function buildUrl(url: string, params?: Params): URL {
  const full = new URL(url, currentHref());
  if (params) {
    for (const [key, value] of Object.entries(params)) {
      const values = Array.isArray(value) ? value : [value];
      for (const v of values) {
        if (v === null || v === undefined) continue;
        full.searchParams.append(key, String(v));
      }
    }
  }
  return full;
}

/** Whether the URL's path ends in user.php (query and hash ignored). */
export function isUserPhp(url: string): boolean {
  return new URL(url, currentHref()).pathname.endsWith("user.php");
}

/** Logging in rotates Django's CSRF token; API responses carry the new one in
 * X-CSRF-Token and the page's meta tag follows it, for every island. */
export function setCsrfToken(token: unknown, doc: Document = document): void {
  if (typeof token !== "string" || !token) return;
  let meta = doc.querySelector<HTMLMetaElement>('meta[name="csrf-token"]');
  if (!meta) {
    meta = doc.createElement("meta");
    meta.name = "csrf-token";
    doc.head.appendChild(meta);
  }
  meta.content = token;
}

export function csrfToken(doc: Document = document): string | null {
  return doc.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content || null;
}

function isAbortError(err: unknown): boolean {
  return (
    (typeof DOMException !== "undefined" && err instanceof DOMException && err.name === "AbortError") ||
    (err instanceof Error && err.name === "AbortError")
  );
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new DOMException("Aborted", "AbortError"));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new DOMException("Aborted", "AbortError"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function encodeBody(body: unknown, headers: Headers): BodyInit | undefined {
  if (body === undefined) return undefined;
  if (
    (typeof FormData !== "undefined" && body instanceof FormData) ||
    (typeof Blob !== "undefined" && body instanceof Blob) ||
    (typeof URLSearchParams !== "undefined" && body instanceof URLSearchParams) ||
    typeof body === "string"
  ) {
    return body as BodyInit;
  }
  headers.set("Content-Type", "application/json");
  return JSON.stringify(body);
}

async function readJson(res: Response): Promise<unknown> {
  if (res.status === 204 || res.status === 205) return null;
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function errorFromResponse(res: Response): Promise<ApiError> {
  let code = "error";
  let message = config.strings.error;
  let fields: FieldErrors = {};
  try {
    const data = await readJson(res);
    const err = typeof data === "object" && data !== null ? (data as { error?: unknown }).error : undefined;
    if (typeof err === "object" && err !== null) {
      const { code: c, message: m, fields: f } = err as { code?: unknown; message?: unknown; fields?: unknown };
      if (typeof c === "string" && c) code = c;
      if (typeof m === "string" && m) message = m;
      fields = parseFieldErrors(f);
    }
  } catch {
    // Body unreadable: keep the fallbacks.
  }
  return new ApiError(res.status, code, message, fields);
}

let loggingOut = false;

async function logoutAfterAuthError(): Promise<void> {
  if (loggingOut || appStore.get().user === null) return;
  loggingOut = true;
  try {
    const doFetch = config.fetch ?? fetch;
    await doFetch(config.logoutUrl, {
      method: "GET",
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    });
  } catch {
    // The session is gone either way; no retries here.
  }
  appStore.set({ user: null });
  config.reload();
}

export async function request<T = unknown>(method: Method, url: string, options: RequestOptions = {}): Promise<T> {
  const { params, body, signal } = options;
  const full = buildUrl(url, params);
  const userPhp = full.pathname.endsWith("user.php");
  const maxRetries = options.retries ?? config.retries;

  const headers = new Headers({ Accept: "application/json", ...(options.headers ?? {}) });
  const token = csrfToken();
  if (token) headers.set("X-CSRFToken", token);
  if (userPhp) headers.set("X-Request-Type", "client");
  const encoded = encodeBody(body, headers);

  const sameOrigin = typeof window === "undefined" || full.origin === window.location.origin;
  const target = sameOrigin ? full.pathname + full.search : full.href;

  for (let attempt = 0; ; attempt++) {
    const doFetch = config.fetch ?? fetch;
    let res: Response;
    try {
      res = await doFetch(target, {
        method,
        headers,
        body: encoded,
        credentials: "same-origin",
        signal,
        // A change the member made (a delete, a like) still reaches the server when they
        // leave or reload the page at once; browsers allow this for bodies up to 64 KB.
        keepalive: method !== "GET" && (encoded == null || (typeof encoded === "string" && encoded.length < KEEPALIVE_MAX)),
      });
    } catch (err) {
      if (isAbortError(err) || signal?.aborted) throw err;
      if (attempt < maxRetries) {
        await sleep(config.baseDelayMs * 2 ** attempt, signal);
        continue;
      }
      throw new ApiError(0, "network_error", config.strings.networkError);
    }

    if (typeof document !== "undefined") setCsrfToken(res.headers?.get?.("X-CSRF-Token"));
    if (res.ok) return (await readJson(res)) as T;

    if (res.status >= 500 && attempt < maxRetries) {
      // Free the connection before waiting.
      res.body?.cancel().catch(() => {});
      await sleep(config.baseDelayMs * 2 ** attempt, signal);
      continue;
    }

    const error = await errorFromResponse(res);
    if (error.status === 403 && error.code === "authentication_required" && !userPhp) {
      await logoutAfterAuthError();
    }
    throw error;
  }
}

export const get = <T = unknown>(url: string, options?: Omit<RequestOptions, "body">) =>
  request<T>("GET", url, options);
export const post = <T = unknown>(url: string, body?: unknown, options?: Omit<RequestOptions, "body">) =>
  request<T>("POST", url, { ...options, body });
export const put = <T = unknown>(url: string, body?: unknown, options?: Omit<RequestOptions, "body">) =>
  request<T>("PUT", url, { ...options, body });
export const patch = <T = unknown>(url: string, body?: unknown, options?: Omit<RequestOptions, "body">) =>
  request<T>("PATCH", url, { ...options, body });
export const del = <T = unknown>(url: string, body?: unknown, options?: Omit<RequestOptions, "body">) =>
  request<T>("DELETE", url, { ...options, body });

/**
 * POST beacon /api/page-hidden.php with an empty JSON body (spec §7); the base entry calls it
 * when the page becomes hidden. Returns whether the beacon was queued.
 */
export function sendPageHiddenBeacon(): boolean {
  if (typeof navigator === "undefined" || typeof navigator.sendBeacon !== "function") return false;
  try {
    return navigator.sendBeacon(config.pageHiddenUrl, new Blob(["{}"], { type: "application/json" }));
  } catch {
    return false;
  }
}
