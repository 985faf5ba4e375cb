/** Small pure helpers of the Chat island. */
import type { MessageData, ShownMessage } from "./types";

/** Replaces {name}, {count}... in a translated string. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}

export function withId(template: string, id: number): string {
  return template.replace("{id}", String(id));
}

/** "14:05" today, "12 Mar 14:05" on another day, in the member's locale (the island's `locale` prop, "en-GB"). */
export function messageTime(iso: string | null, locale: string, now: Date = new Date()): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const time = date.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit" });
  if (date.toDateString() === now.toDateString()) return time;
  return `${date.toLocaleDateString(locale, { day: "numeric", month: "short" })} ${time}`;
}

/**
 * The messages to show: the server's (by id, oldest first) with ours that are still on
 * their way at the end. A server message replaces the local one with the same client_id.
 */
export function mergeMessages(current: ShownMessage[], incoming: MessageData[]): ShownMessage[] {
  const byId = new Map<number, ShownMessage>();
  for (const message of current) if (!message.local) byId.set(message.id, message);
  const arrived = new Set<string>();
  for (const message of incoming) {
    const previous = byId.get(message.id);
    // Delivered and read only move forward: an answer sent before the other's device
    // acknowledged the message (the POST's) does not undo what the socket told us since.
    byId.set(
      message.id,
      previous
        ? {
            ...previous,
            ...message,
            delivered_at: message.delivered_at ?? previous.delivered_at ?? null,
            read_at: message.read_at ?? previous.read_at ?? null,
          }
        : message,
    );
    if (message.client_id) arrived.add(message.client_id);
  }
  for (const message of byId.values()) if (message.client_id) arrived.add(message.client_id);
  const server = [...byId.values()].sort((a, b) => a.id - b.id);
  const pending = current.filter((message) => message.local && !(message.client_id && arrived.has(message.client_id)));
  return [...server, ...pending];
}

/** The server's full history replaces what we had (deleted or hidden ones drop out); ours on their way stay. */
export function replaceHistory(current: ShownMessage[], history: MessageData[]): ShownMessage[] {
  const kept = current.filter((message) => message.local);
  return mergeMessages(kept, history);
}

/** The newest of our messages the other's device has received, and has read. */
export interface Marks {
  delivered: { upTo: number; at: string } | null;
  read: { upTo: number; at: string } | null;
}

/** Applies the marks heard so far to messages that arrived after them (e.g. the POST's answer). */
export function applyMarks(current: ShownMessage[], marks: Marks): ShownMessage[] {
  let next = current;
  if (marks.delivered) next = markState(next, "delivered", marks.delivered.upTo, marks.delivered.at);
  if (marks.read) next = markState(next, "read", marks.read.upTo, marks.read.at);
  return next;
}

/** Own messages up to `upTo` get the delivered or read time. */
export function markState(
  current: ShownMessage[],
  kind: "delivered" | "read",
  upTo: number | null,
  at: string,
): ShownMessage[] {
  let changed = false;
  const next = current.map((message) => {
    if (!message.mine || message.local || (upTo !== null && message.id > upTo)) return message;
    if (kind === "read" && !message.read_at) {
      changed = true;
      return { ...message, read_at: at, delivered_at: message.delivered_at ?? at };
    }
    if (kind === "delivered" && !message.delivered_at) {
      changed = true;
      return { ...message, delivered_at: at };
    }
    return message;
  });
  return changed ? next : current;
}

export type TickState = "sending" | "queued" | "sent" | "delivered" | "read";

export function tickState(message: ShownMessage): TickState {
  if (message.local) return message.local;
  if (message.read_at) return "read";
  if (message.delivered_at) return "delivered";
  return "sent";
}
