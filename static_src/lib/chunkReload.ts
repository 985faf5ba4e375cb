/**
 * Chunk-load failure guard (spec §4, §8, §9): after a deploy, an open page may ask for a
 * hashed chunk that no longer exists. Reload the page once to get the new manifest, but at
 * most once per 60 seconds so that a real outage does not become a reload loop.
 */

export const CHUNK_RELOAD_INTERVAL_MS = 60_000;
export const CHUNK_RELOAD_STORAGE_KEY = "chunk-reload-at";

const CHUNK_ERROR_PATTERNS = [
  /Failed to fetch dynamically imported module/i, // Chromium
  /Importing a module script failed/i, // Safari
  /error loading dynamically imported module/i, // Firefox
  /ChunkLoadError/,
  /Loading chunk [\w-]+ failed/i,
];

/** Pure decision: reload when no reload happened yet or the last one is 60 s or more ago. */
export function shouldReload(now: number, lastReload: number | null | undefined): boolean {
  if (lastReload === null || lastReload === undefined || !Number.isFinite(lastReload)) return true;
  if (lastReload > now) return true; // clock went back: the stored value means nothing
  return now - lastReload >= CHUNK_RELOAD_INTERVAL_MS;
}

/** Whether an error, rejection reason or message says that a module/chunk failed to load. */
export function isChunkLoadError(reason: unknown): boolean {
  if (reason === null || reason === undefined) return false;
  let text: string;
  if (typeof reason === "string") {
    text = reason;
  } else if (typeof reason === "object") {
    const { name, message } = reason as { name?: unknown; message?: unknown };
    if (name === "ChunkLoadError") return true;
    text = typeof message === "string" ? message : "";
  } else {
    return false;
  }
  return CHUNK_ERROR_PATTERNS.some((re) => re.test(text));
}

export interface ChunkReloadOptions {
  reload?: () => void;
  now?: () => number;
  storage?: Pick<Storage, "getItem" | "setItem">;
  /** Only script errors of files under this path count (the esbuild output, on the site or its CDN). */
  assetPrefix?: string;
  target?: Window;
}

/**
 * Reloads if allowed and records the time. Returns whether it reloaded. Without a working
 * sessionStorage it does not reload: without a record of the last reload it cannot promise
 * "at most once per 60 s".
 */
export function reloadOnce(options: ChunkReloadOptions = {}): boolean {
  const now = (options.now ?? Date.now)();
  const reload = options.reload ?? (() => window.location.reload());
  try {
    const storage = options.storage ?? window.sessionStorage;
    const raw = storage.getItem(CHUNK_RELOAD_STORAGE_KEY);
    const last = raw === null ? null : Number(raw);
    if (!shouldReload(now, last)) return false;
    storage.setItem(CHUNK_RELOAD_STORAGE_KEY, String(now));
  } catch {
    return false;
  }
  reload();
  return true;
}

/** Installs the listeners; returns a function that removes them. */
export function installChunkReloadGuard(options: ChunkReloadOptions = {}): () => void {
  const target = options.target ?? window;
  const assetPrefix = options.assetPrefix ?? "/static/dist/";

  const onRejection = (event: PromiseRejectionEvent) => {
    if (isChunkLoadError(event.reason)) reloadOnce(options);
  };

  const onError = (event: Event) => {
    if (event instanceof ErrorEvent) {
      if (isChunkLoadError(event.error) || isChunkLoadError(event.message)) reloadOnce(options);
      return;
    }
    // Resource errors do not bubble; in the capture phase we see a module script of ours
    // (an island entry or a chunk it imports) that failed to load.
    const el = event.target;
    if (el instanceof HTMLScriptElement && el.type === "module" && el.src) {
      const path = new URL(el.src, window.location.href).pathname;
      if (path.includes(assetPrefix)) reloadOnce(options);
    }
  };

  target.addEventListener("unhandledrejection", onRejection);
  target.addEventListener("error", onError, true);
  return () => {
    target.removeEventListener("unhandledrejection", onRejection);
    target.removeEventListener("error", onError, true);
  };
}
