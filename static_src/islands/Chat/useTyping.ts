/**
 * "… is typing" both ways (docs/chat.md): the other's "typing" events show the indicator for a
 * few seconds (their message ends it at once), and our writing sends "typing" at most every
 * TYPING_SEND_MS. Only over the live connection: without it nobody hears of typing, and no
 * request is made for it. A hook of its own so that its timers stay out of the conversation.
 */
import type { Realtime } from "../../lib/realtime";
import { useEffect, useRef, useState } from "./react";

export const TYPING_SEND_MS = 2_000;
export const TYPING_SHOW_MS = 5_000;

/** Until when (ms since the epoch) the other counts as typing (0: they do not); the function
 * that ends it (their message came); and the one to call with what we wrote into the box, which
 * sends "typing" unless it went less than TYPING_SEND_MS ago. */
export type Typing = [typingUntil: number, stopTyping: () => void, typed: (text: string) => void];

export function useTyping(realtime: Realtime | null | undefined, conversation: number): Typing {
  const [typingUntil, setTypingUntil] = useState(0);
  const sentAt = useRef(0);

  useEffect(
    () =>
      realtime?.on("typing", (event) => {
        if (event.conversation === conversation) setTypingUntil(Date.now() + TYPING_SHOW_MS);
      }),
    [realtime, conversation],
  );

  // The indicator goes away by itself.
  useEffect(() => {
    if (!typingUntil) return;
    const timer = setTimeout(() => setTypingUntil(0), Math.max(0, typingUntil - Date.now()));
    return () => clearTimeout(timer);
  }, [typingUntil]);

  const typed = (text: string) => {
    const now = Date.now();
    if (text && realtime && now - sentAt.current >= TYPING_SEND_MS) {
      if (realtime.send({ type: "typing", conversation })) sentAt.current = now;
    }
  };
  return [typingUntil, () => setTypingUntil(0), typed];
}
