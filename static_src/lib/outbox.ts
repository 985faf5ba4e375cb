/**
 * The outbox: messages written while offline (docs/chat.md). Each keeps its client_id, so a
 * resend is stored once by the server. A module of its own so that the conversation has it from
 * its first render while the live connection (lib/realtime.ts) is imported after it: follow()
 * takes the connection when it comes, and flushes the outbox whenever it is "open".
 */
import type { Realtime } from "./realtime";

export interface OutboxItem {
  /** The message's client_id: the server stores one message per client_id. */
  clientId: string;
  [key: string]: unknown;
}

/** What a send attempt came to: "sent" (done), "offline" (keep and retry), "failed" (drop). */
export type SendResult = "sent" | "offline" | "failed";

export interface Outbox<T extends OutboxItem> {
  /** Queue an item and try it at once (unless one with the same clientId is queued). */
  add(item: T): Promise<SendResult>;
  /** Try every queued item once (in order); each is sent at most once at a time. */
  flush(): Promise<void>;
  items(): T[];
  subscribe(listener: (items: T[]) => void): () => void;
  /** Flush now if `realtime` is open, and each time it comes back "open"; returns the
   * function that stops following it. */
  follow(realtime: Realtime): () => void;
  dispose(): void;
}

export interface OutboxOptions<T extends OutboxItem> {
  send: (item: T) => Promise<SendResult>;
  win?: Window;
  /** Retry queued items this often, whatever the socket does (0: never). */
  retryMs?: number;
}

export function createOutbox<T extends OutboxItem>(options: OutboxOptions<T>): Outbox<T> {
  const win = options.win ?? window;
  let queue: T[] = [];
  const inFlight = new Set<string>();
  const listeners = new Set<(items: T[]) => void>();
  let timer: ReturnType<typeof setInterval> | null = null;

  const changed = () => {
    for (const listener of [...listeners]) listener(queue);
    if (queue.length && timer === null && options.retryMs) {
      timer = setInterval(() => void flush(), options.retryMs);
    } else if (!queue.length && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  };

  const attempt = async (item: T): Promise<SendResult> => {
    if (inFlight.has(item.clientId)) return "offline";
    inFlight.add(item.clientId);
    let result: SendResult;
    try {
      result = await options.send(item);
    } catch {
      result = "failed";
    } finally {
      inFlight.delete(item.clientId);
    }
    if (result !== "offline") {
      queue = queue.filter((queued) => queued.clientId !== item.clientId);
      changed();
    }
    return result;
  };

  async function flush() {
    for (const item of [...queue]) {
      const result = await attempt(item);
      if (result === "offline") break; // still offline: keep the order, try later
    }
  }

  const onOnline = () => void flush();
  win.addEventListener("online", onOnline);

  return {
    async add(item) {
      if (!queue.some((queued) => queued.clientId === item.clientId)) {
        queue = [...queue, item];
        changed();
      }
      return attempt(item);
    },
    flush,
    items: () => queue,
    follow(realtime) {
      if (realtime.status === "open") void flush();
      return realtime.onStatus((status) => {
        if (status === "open") void flush();
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    dispose() {
      win.removeEventListener("online", onOnline);
      if (timer !== null) clearInterval(timer);
      timer = null;
      listeners.clear();
    },
  };
}

/** A client_id for a new message: crypto.randomUUID where there is one. */
export function newClientId(): string {
  const c = (globalThis as { crypto?: Crypto }).crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  const bytes = new Uint8Array(16);
  if (c && typeof c.getRandomValues === "function") c.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return `c${Date.now().toString(36)}-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
