/**
 * The page's live connection for islands that listen to it (the chat), without lib/realtime.ts
 * in the page's initial modules: useRealtime() imports it with import() after the island's first
 * render and opens the connection for a logged-in member (the member code, base/member.ts, opens
 * the same one; whichever comes first). Until the module is there the island gets `undefined`,
 * which it treats as "connecting" (no polling); after it, the connection, or null without one
 * (visitors, tests that start none).
 */
import { useEffect, useState } from "react";

import type { Realtime } from "./realtime";
import { appStore } from "./store";

type RealtimeModule = typeof import("./realtime");

let loaded: RealtimeModule | null = null;
let loading: Promise<RealtimeModule> | null = null;

/** Imports lib/realtime.ts once and opens the page's connection for a logged-in member. A chunk
 * that fails to load rejects unhandled, and lib/chunkReload.ts reloads the page; until then (or
 * when it reloaded once already) useRealtime() gives null: no connection, the chat polls. */
export function loadRealtime(): Promise<RealtimeModule> {
  loading ??= import("./realtime").then((module) => {
    if (appStore.get().user) module.startRealtime();
    return (loaded = module);
  });
  return loading;
}

/** The page's connection: undefined while lib/realtime.ts is being imported, then it or null. */
export function useRealtime(): Realtime | null | undefined {
  const [realtime, setRealtime] = useState<Realtime | null | undefined>(() => loaded?.getRealtime());
  useEffect(() => {
    if (realtime !== undefined) return;
    let live = true;
    void loadRealtime().then(
      (module) => live && setRealtime(module.getRealtime()),
      (error) => {
        // Not loaded: no connection, so the conversation polls (and the guard may reload).
        if (live) setRealtime(null);
        throw error;
      },
    );
    return () => {
      live = false;
    };
  }, [realtime]);
  return realtime;
}
