import { afterEach, describe, expect, it, vi } from "vitest";

import { activityReset, IDLE_MS, memberActive, noteInput, onActive } from "../activity";

describe("activity", () => {
  afterEach(() => activityReset());

  it("is active after input and idle after IDLE_MS without any", () => {
    activityReset(1_000);
    expect(memberActive(1_000 + IDLE_MS - 1)).toBe(true);
    expect(memberActive(1_000 + IDLE_MS)).toBe(false);
  });

  it("is never active while the page is hidden", () => {
    activityReset(1_000);
    const hidden = { visibilityState: "hidden" } as Document;
    expect(memberActive(1_001, hidden)).toBe(false);
  });

  it("calls the listeners on the first input after idling, not on every input", () => {
    activityReset(1_000);
    const listener = vi.fn();
    onActive(listener);
    noteInput(2_000);
    expect(listener).not.toHaveBeenCalled();
    noteInput(2_000 + IDLE_MS + 1);
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("stops calling a listener that unsubscribed", () => {
    activityReset(1_000);
    const listener = vi.fn();
    const off = onActive(listener);
    off();
    noteInput(1_000 + IDLE_MS + 1);
    expect(listener).not.toHaveBeenCalled();
  });
});
