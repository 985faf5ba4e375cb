import { afterEach, describe, expect, it } from "vitest";

import { formatDate, formatMoney, pageLocale } from "../locale";

afterEach(() => {
  document.head.innerHTML = "";
  document.documentElement.lang = "";
});

describe("pageLocale", () => {
  it("reads the server's language-and-country tag, then the page's language, then en", () => {
    document.documentElement.lang = "en";
    document.head.innerHTML = '<meta name="locale" content="en-GB">';
    expect(pageLocale()).toBe("en-GB");
    document.head.innerHTML = "";
    expect(pageLocale()).toBe("en");
    document.documentElement.lang = "";
    expect(pageLocale()).toBe("en");
    document.head.innerHTML = '<meta name="locale" content="not a tag!">';
    expect(pageLocale()).toBe("en");
  });
});

describe("formatDate and formatMoney", () => {
  const day = new Date(Date.UTC(2026, 10, 25, 12));

  it("write a UK member's dates and money the British way", () => {
    document.head.innerHTML = '<meta name="locale" content="en-GB">';
    expect(formatDate(day)).toBe("25/11/2026");
    expect(formatMoney(1495, "GBP")).toBe("£14.95");
    expect(formatMoney(1495, "EUR")).toBe("€14.95");
  });

  it("follow the locale given, not the American default", () => {
    expect(formatDate(day, undefined, "en-US")).toBe("11/25/2026");
    expect(formatDate(day, undefined, "de-DE")).toBe("25.11.2026");
    expect(formatMoney(123456, "EUR", "de-DE")).toBe("1.234,56\u00a0€");
    expect(formatMoney(1495, "EUR", "fr-FR")).toBe("14,95\u00a0€");
  });

  it("survive bad input", () => {
    expect(formatDate("not a date", undefined, "en-GB")).toBe("");
    expect(formatMoney(1000, "EUR", "xx-invalid-!!")).toBe("€10.00");
  });
});
