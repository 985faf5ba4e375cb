/** The conversation's draft (useDraft.ts): kept per conversation in sessionStorage until sent. */
import { act, renderHook } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { useDraft } from "../useDraft";

afterEach(() => {
  sessionStorage.clear();
});

describe("useDraft", () => {
  it("starts with the stored draft of its conversation and stores each change under it alone", () => {
    sessionStorage.setItem("chat-draft-5", "Half a sentence");
    sessionStorage.setItem("chat-draft-6", "Another chat's draft");
    const { result } = renderHook(() => useDraft(5));
    expect(result.current[0]).toBe("Half a sentence");

    act(() => result.current[1]("Half a sentence, finished"));
    expect(result.current[0]).toBe("Half a sentence, finished");
    expect(sessionStorage.getItem("chat-draft-5")).toBe("Half a sentence, finished");
    expect(sessionStorage.getItem("chat-draft-6")).toBe("Another chat's draft");

    // A new page of the same conversation (a reload, back from the list) finds it.
    const again = renderHook(() => useDraft(5));
    expect(again.result.current[0]).toBe("Half a sentence, finished");
  });

  it("an empty draft (sent) removes the stored one", () => {
    sessionStorage.setItem("chat-draft-5", "Hello");
    const { result } = renderHook(() => useDraft(5));
    act(() => result.current[1](""));
    expect(result.current[0]).toBe("");
    expect(sessionStorage.getItem("chat-draft-5")).toBeNull();
    expect(renderHook(() => useDraft(5)).result.current[0]).toBe("");
  });

  it("an update from the previous draft (a failed send's text put back) is stored too", () => {
    const { result } = renderHook(() => useDraft(5));
    act(() => result.current[1]("typed since"));
    act(() => result.current[1]((current) => (current ? `refused text\n${current}` : "refused text")));
    expect(result.current[0]).toBe("refused text\ntyped since");
    expect(sessionStorage.getItem("chat-draft-5")).toBe("refused text\ntyped since");
  });

  it("where storage is refused (private mode) the draft lives as long as the page", () => {
    vi.spyOn(Storage.prototype, "getItem").mockImplementation(() => {
      throw new DOMException("denied", "SecurityError");
    });
    const setItem = vi.spyOn(Storage.prototype, "setItem").mockImplementation(() => {
      throw new DOMException("full", "QuotaExceededError");
    });
    const { result } = renderHook(() => useDraft(5));
    expect(result.current[0]).toBe("");
    act(() => result.current[1]("Still here"));
    expect(result.current[0]).toBe("Still here");
    expect(setItem).toHaveBeenCalledWith("chat-draft-5", "Still here");
  });
});
