import { afterEach, describe, expect, it } from "vitest";

import { arrivalAddressClean } from "../arrivalAddress";

function named(content: string): void {
  const meta = document.createElement("meta");
  meta.name = "arrival-params";
  meta.content = content;
  document.head.append(meta);
}

afterEach(() => {
  document.head.querySelector('meta[name="arrival-params"]')?.remove();
  window.history.replaceState(null, "", "/");
});

describe("arrivalAddressClean", () => {
  it("takes the tracking parameters out of the address and keeps the others", () => {
    named("network ref sub1 lb");
    window.history.replaceState({ kept: 1 }, "", "/landers/gallery/spring?t=30&network=ads&sub1=x%20y&lb=gallery#top");
    expect(arrivalAddressClean()).toBe(true);
    expect(window.location.pathname + window.location.search + window.location.hash).toBe(
      "/landers/gallery/spring?t=30#top",
    );
    expect(window.history.state).toEqual({ kept: 1 });
  });

  it("leaves an address without them, or a page that names none, as it is", () => {
    named("network ref sub1 lb");
    window.history.replaceState(null, "", "/?t=30&page=2");
    expect(arrivalAddressClean()).toBe(false);
    expect(window.location.search).toBe("?t=30&page=2");
    document.head.querySelector('meta[name="arrival-params"]')?.remove();
    window.history.replaceState(null, "", "/?network=ads");
    expect(arrivalAddressClean()).toBe(false);
    expect(window.location.search).toBe("?network=ads");
  });
});
