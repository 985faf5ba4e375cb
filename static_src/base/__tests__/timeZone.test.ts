import { afterEach, describe, expect, it } from "vitest";

import { keepTimeZone } from "../timeZone";

afterEach(() => {
  document.cookie = "dp_tz=; Max-Age=0; Path=/";
  delete document.body.dataset.timeZoneCookie;
});

describe("keepTimeZone", () => {
  it("writes the browser's zone into the cookie a member's page names, once", () => {
    document.body.dataset.timeZoneCookie = "dp_tz";
    expect(keepTimeZone(document, "Europe/Berlin")).toBe(true);
    expect(document.cookie).toContain("dp_tz=Europe/Berlin");
    expect(keepTimeZone(document, "Europe/Berlin")).toBe(false);
    expect(keepTimeZone(document, "America/Argentina/Buenos_Aires")).toBe(true);
    expect(document.cookie).toContain("dp_tz=America/Argentina/Buenos_Aires");
  });

  it("writes nothing on a visitor's page or for a name that is not a zone", () => {
    expect(keepTimeZone(document, "Europe/Berlin")).toBe(false);
    document.body.dataset.timeZoneCookie = "dp_tz";
    expect(keepTimeZone(document, "Europe/Berlin; Path=/admin")).toBe(false);
    expect(keepTimeZone(document, "")).toBe(false);
    expect(document.cookie).not.toContain("dp_tz=");
  });
});
