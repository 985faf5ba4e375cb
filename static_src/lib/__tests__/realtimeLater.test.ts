/**
 * lib/realtimeLater.ts when lib/realtime.ts cannot be loaded (a chunk gone after a deploy, the
 * network down): the island gets null, "no connection", so the chat polls instead of waiting
 * as "connecting" for ever; the error still reaches the page (the chunk-reload guard).
 */
import { renderHook, waitFor } from "@testing-library/react";
import { expect, it, vi } from "vitest";

vi.mock("../realtime", () => {
  throw new Error("Failed to fetch dynamically imported module");
});

/** Node's process (vitest runs in it): where an unhandled rejection shows. */
type Listener = (reason: unknown) => void;
const node = (globalThis as unknown as { process: { on(e: string, f: Listener): void; off(e: string, f: Listener): void } })
  .process;

it("gives null when the live connection's module does not load", async () => {
  const { useRealtime } = await import("../realtimeLater");
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  node.on("unhandledRejection", onRejection);
  try {
    const { result } = renderHook(() => useRealtime());
    expect(result.current).toBeUndefined();
    await waitFor(() => expect(result.current).toBeNull());
    await waitFor(() => expect(rejections).toHaveLength(1));
  } finally {
    node.off("unhandledRejection", onRejection);
  }
});
