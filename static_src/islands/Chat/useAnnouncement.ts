/**
 * What the conversation's polite live region says (docs/frontend.md, accessibility): the text
 * of each new incoming message, once, whether it came live, polled or after a push. The
 * messages list itself is not a live region (it would read the whole list again), so the
 * announcement is a state of its own, keyed so that the same text twice is said twice.
 */

import { useEffect, useRef, useState } from "./react";
import type { MessageData, ShownMessage } from "./types";

export interface Announcement {
  text: string;
  key: number;
}

/** The newest id of the other's messages (0 without any). */
function newestIncoming(messages: MessageData[]): number {
  return messages.reduce((max, message) => (!message.mine && message.id > max ? message.id : max), 0);
}

/** What a screen reader says for an incoming message: its text, else "Photo" or the gift. */
function spokenText(message: ShownMessage, strings: Record<string, string>): string {
  if (message.text) return message.text;
  if (message.kind === "photo") return strings.photo ?? "";
  if (message.kind === "gift") return message.gift?.name ?? "";
  return "";
}

/** Announces the other's messages newer than those of the first render. */
export function useAnnouncement(messages: ShownMessage[], strings: Record<string, string>): Announcement {
  const [announcement, setAnnouncement] = useState({ text: "", key: 0 });
  const announcedUpTo = useRef(newestIncoming(messages));
  useEffect(() => {
    const fresh = messages.filter((message) => !message.mine && message.id > announcedUpTo.current);
    if (fresh.length === 0) return;
    announcedUpTo.current = Math.max(...fresh.map((message) => message.id));
    const text = fresh.map((message) => spokenText(message, strings)).filter(Boolean).join("\n");
    if (text) setAnnouncement((previous) => ({ text, key: previous.key + 1 }));
  }, [messages, strings]);
  return announcement;
}
