/**
 * The newest message stays in view while the member is at the end (useScrollPinning.ts). jsdom
 * lays nothing out, so the list here is an element whose heights the test sets and whose
 * scrollTop the browser's way clamps; a ResizeObserver stand-in reports its size changes.
 */
import { act, renderHook } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { PINNED_SLACK_PX, useScrollPinning } from "../useScrollPinning";

/** A scrolling list: `height` of content in a box of `box` pixels. */
function list(height: number, box = 400) {
  const el = document.createElement("div");
  el.append(document.createElement("ol"));
  const size = { height, box, top: 0 };
  Object.defineProperty(el, "scrollHeight", { get: () => size.height });
  Object.defineProperty(el, "clientHeight", { get: () => size.box });
  Object.defineProperty(el, "scrollTop", {
    get: () => size.top,
    set: (value: number) => {
      size.top = Math.max(0, Math.min(value, size.height - size.box));
    },
  });
  return { el, size };
}

let observers: { callback: () => void; targets: Element[] }[] = [];

beforeEach(() => {
  observers = [];
  vi.stubGlobal(
    "ResizeObserver",
    class {
      entry: { callback: () => void; targets: Element[] };
      constructor(callback: () => void) {
        this.entry = { callback, targets: [] };
        observers.push(this.entry);
      }
      observe(target: Element) {
        this.entry.targets.push(target);
      }
      disconnect() {
        observers = observers.filter((entry) => entry !== this.entry);
      }
    },
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

/** The hook over the list `el`; `grow(height)` renders it again with a new message that
 * makes the list `height` tall. */
function pinned({ el, size }: ReturnType<typeof list>) {
  const hook = renderHook(({ content, children }) => useScrollPinning<HTMLElement>([content], children), {
    initialProps: { content: 0, children: 0 },
  });
  hook.result.current[0].current = el;
  // The element is there from now on: the observer is set up again for it.
  hook.rerender({ content: 1, children: 1 });
  let content = 1;
  const grow = (height: number) => {
    size.height = height;
    hook.rerender({ content: ++content, children: 1 });
  };
  const scrollTo = (top: number) => {
    el.scrollTop = top;
    hook.result.current[1]();
  };
  return { grow, scrollTo, onScroll: () => hook.result.current[1](), pin: () => hook.result.current[2]() };
}

describe("useScrollPinning", () => {
  it("keeps the end in view as messages come while the member is there", () => {
    const target = list(1000);
    const { grow } = pinned(target);
    const { el } = target;
    expect(el.scrollTop).toBe(600);
    grow(1300);
    expect(el.scrollTop).toBe(900);
  });

  it("a member who scrolled up to read stays where they are, until they send", () => {
    const target = list(1000);
    const { grow, scrollTo, pin } = pinned(target);
    const { el } = target;
    scrollTo(200);
    grow(1300);
    expect(el.scrollTop).toBe(200);

    pin(); // they send
    grow(1400);
    expect(el.scrollTop).toBe(1000);
  });

  it("near the end (within the slack) counts as at the end; back near it pins again", () => {
    const target = list(1000);
    const { grow, scrollTo } = pinned(target);
    const { el } = target;
    scrollTo(600 - PINNED_SLACK_PX);
    grow(1100);
    expect(el.scrollTop).toBe(700);

    scrollTo(700 - PINNED_SLACK_PX - 1);
    grow(1200);
    expect(el.scrollTop).toBe(700 - PINNED_SLACK_PX - 1);

    scrollTo(780); // on the way back down: 20 px from the end
    grow(1300);
    expect(el.scrollTop).toBe(900);
  });

  it("the scroll event of its own move does not unpin, though a photo made the list taller since", () => {
    const target = list(1000);
    const { el, size } = target;
    const { grow, onScroll } = pinned(target);
    expect(el.scrollTop).toBe(600);
    size.height = 1500; // a photo loaded before the scroll event of that move came
    onScroll(); // 500 px from the end, but where the hook put it
    grow(1500); // the next message
    expect(el.scrollTop).toBe(1100);
  });

  it("a list that changes size (a photo loads, the keyboard opens) keeps the end in view while pinned", () => {
    const target = list(1000);
    const { el, size } = target;
    const { scrollTo } = pinned(target);
    expect(observers).toHaveLength(1);
    expect(observers[0]!.targets).toEqual([el, el.firstElementChild]);

    size.box = 250; // the keyboard opened
    act(() => observers[0]!.callback());
    expect(el.scrollTop).toBe(750);

    scrollTo(100);
    size.height = 1200;
    act(() => observers[0]!.callback());
    expect(el.scrollTop).toBe(100);
  });
});
