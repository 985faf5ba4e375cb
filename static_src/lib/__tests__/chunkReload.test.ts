import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import {
  CHUNK_RELOAD_STORAGE_KEY,
  installChunkReloadGuard,
  isChunkLoadError,
  shouldReload,
} from "../chunkReload";

describe("shouldReload", () => {
  it("allows the first reload", () => {
    expect(shouldReload(1_000_000, null)).toBe(true);
    expect(shouldReload(1_000_000, undefined)).toBe(true);
    expect(shouldReload(1_000_000, Number.NaN)).toBe(true);
  });

  it("refuses a second reload within 60 seconds", () => {
    expect(shouldReload(1_000_000, 1_000_000)).toBe(false);
    expect(shouldReload(1_059_999, 1_000_000)).toBe(false);
  });

  it("allows it again from 60 seconds on", () => {
    expect(shouldReload(1_060_000, 1_000_000)).toBe(true);
    expect(shouldReload(5_000_000, 1_000_000)).toBe(true);
  });
});

describe("isChunkLoadError", () => {
  it("recognises the browsers' messages and ChunkLoadError", () => {
    expect(isChunkLoadError(new TypeError("Failed to fetch dynamically imported module: https://x/a.js"))).toBe(true);
    expect(isChunkLoadError(new TypeError("Importing a module script failed."))).toBe(true);
    expect(isChunkLoadError(new TypeError("error loading dynamically imported module: https://x/a.js"))).toBe(true);
    expect(isChunkLoadError(Object.assign(new Error("Loading chunk 3 failed."), { name: "ChunkLoadError" }))).toBe(true);
    expect(isChunkLoadError("Uncaught ChunkLoadError: Loading chunk 1 failed")).toBe(true);
  });

  it("ignores other errors", () => {
    expect(isChunkLoadError(new TypeError("Failed to fetch"))).toBe(false);
    expect(isChunkLoadError(new Error("x is undefined"))).toBe(false);
    expect(isChunkLoadError(null)).toBe(false);
    expect(isChunkLoadError(42)).toBe(false);
  });
});

describe("installChunkReloadGuard", () => {
  let uninstall: () => void = () => {};
  let now = 1_000_000;
  const reload = vi.fn();

  function rejection(reason: unknown): Event {
    return Object.assign(new Event("unhandledrejection"), { reason });
  }

  beforeEach(() => {
    sessionStorage.clear();
    reload.mockReset();
    now = 1_000_000;
    uninstall = installChunkReloadGuard({ reload, now: () => now });
  });

  afterEach(() => uninstall());

  it("reloads on a chunk failure and records the time", () => {
    window.dispatchEvent(rejection(new TypeError("Failed to fetch dynamically imported module: /static/dist/x.js")));
    expect(reload).toHaveBeenCalledTimes(1);
    expect(sessionStorage.getItem(CHUNK_RELOAD_STORAGE_KEY)).toBe("1000000");
  });

  it("reloads at most once per 60 seconds, also across page loads (sessionStorage)", () => {
    const fail = () => window.dispatchEvent(rejection(new TypeError("Importing a module script failed.")));
    fail();
    now += 30_000;
    fail();
    expect(reload).toHaveBeenCalledTimes(1);

    // A new page (guard installed again) within the 60 s still does not reload.
    uninstall();
    uninstall = installChunkReloadGuard({ reload, now: () => now });
    fail();
    expect(reload).toHaveBeenCalledTimes(1);

    now += 30_000;
    fail();
    expect(reload).toHaveBeenCalledTimes(2);
  });

  it("reacts to window error events with a chunk message", () => {
    window.dispatchEvent(new ErrorEvent("error", { message: "error loading dynamically imported module" }));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("reacts to a failed module script of ours, not to other scripts", () => {
    const other = document.createElement("script");
    other.type = "module";
    other.src = "https://cdn.example.com/widget.js";
    document.body.appendChild(other);
    other.dispatchEvent(new Event("error"));
    expect(reload).not.toHaveBeenCalled();

    const ours = document.createElement("script");
    ours.type = "module";
    ours.src = "/static/dist/islands/Chat/index-ABC.js";
    document.body.appendChild(ours);
    ours.dispatchEvent(new Event("error"));
    expect(reload).toHaveBeenCalledTimes(1);
    other.remove();
    ours.remove();
  });

  it("ignores unrelated errors", () => {
    window.dispatchEvent(rejection(new Error("boom")));
    window.dispatchEvent(new ErrorEvent("error", { message: "x is not a function" }));
    expect(reload).not.toHaveBeenCalled();
  });
});
