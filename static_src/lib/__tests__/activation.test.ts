import { describe, expect, it } from "vitest";

import { isSmartphone } from "../activation";

function fakeWindow(matching: string[]): Window {
  return {
    matchMedia: (query: string) => ({ matches: matching.includes(query) }) as MediaQueryList,
  } as unknown as Window;
}

describe("isSmartphone", () => {
  it("is true for narrow screens or coarse pointers", () => {
    expect(isSmartphone(fakeWindow(["(max-width: 575.98px)"]))).toBe(true);
    expect(isSmartphone(fakeWindow(["(pointer: coarse)"]))).toBe(true);
    expect(isSmartphone(fakeWindow([]))).toBe(false);
    expect(isSmartphone({} as Window)).toBe(false);
  });
});
