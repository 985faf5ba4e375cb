/**
 * The newest message stays in view while the member is at the end of the list (docs/chat.md):
 * when a message arrives, a photo finishes loading or the list gets shorter (the phone's
 * keyboard opens). A member who scrolled up to read stays where they are until they send. A
 * hook of its own because it needs the list's element, its scroll events and a ResizeObserver,
 * none of which the rest of the conversation cares about.
 */
import type { RefObject } from "react";

import { useCallback, useEffect, useLayoutEffect, useRef } from "./react";

/** Within this distance of the end the member counts as reading the newest message. */
export const PINNED_SLACK_PX = 48;

/** The scrolling list's ref, its scroll handler (scrolled away from the end unpins, back to it
 * pins), and the function that pins it again (the member sends: they want to see it). */
export type ScrollPinning<T extends HTMLElement> = [listRef: RefObject<T | null>, onScroll: () => void, pin: () => void];

/** Keeps the list of `listRef` at its end while pinned: after each render in which a value of
 * `content` changed, and when the list or one of its children changes size (the children are
 * observed again when `children` changes). */
export function useScrollPinning<T extends HTMLElement>(content: readonly unknown[], children: unknown): ScrollPinning<T> {
  const listRef = useRef<T>(null);
  const pinned = useRef(true);
  // Where toEnd last put the list: the scroll event of that move comes later, when a photo
  // may already have made the list taller, and must not count as the member scrolling up.
  const autoTop = useRef(-1);
  const toEnd = useCallback(() => {
    const el = listRef.current;
    if (!el || !pinned.current) return;
    el.scrollTop = el.scrollHeight;
    autoTop.current = el.scrollTop;
  }, []);
  const onScroll = () => {
    const el = listRef.current;
    if (!el || Math.abs(el.scrollTop - autoTop.current) < 1) return;
    pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight <= PINNED_SLACK_PX;
  };
  // `content` has the same length at every render (React compares the lists item by item).
  useLayoutEffect(toEnd, [...content, toEnd]);
  useEffect(() => {
    const el = listRef.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(toEnd);
    observer.observe(el);
    for (const child of Array.from(el.children)) observer.observe(child);
    return () => observer.disconnect();
  }, [toEnd, children]);
  const pin = () => {
    pinned.current = true;
  };
  return [listRef, onScroll, pin];
}
