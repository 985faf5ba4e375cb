import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { LocationButton, type LocationStrings } from "../LocationButton";
import { appStore } from "../store";

const locate = vi.fn();
vi.mock("../geolocation", () => ({ locate: (...args: unknown[]) => locate(...args) }));

const STRINGS: LocationStrings = {
  useLocation: "Use my location",
  locating: "Finding your location…",
  locationFound: "Your location has been filled in.",
  locationFailed: "Your location could not be found. Please choose it yourself.",
  locationDenied: "Your browser does not share your location. Please choose it yourself.",
};
const AMSTERDAM = { country: "NL", region: "NL-NH", city: "Amsterdam" };

beforeEach(() => {
  localStorage.clear();
  appStore.set({ geolocation: undefined });
  vi.stubGlobal("navigator", { ...navigator, geolocation: { getCurrentPosition: vi.fn() } });
  locate.mockReset();
});

afterEach(cleanup);

describe("LocationButton", () => {
  it("is not shown where the browser has no geolocation", () => {
    vi.stubGlobal("navigator", { ...navigator, geolocation: undefined });
    render(<LocationButton strings={STRINGS} onPlace={() => true} testId="loc" />);
    expect(screen.queryByTestId("loc")).toBeNull();
  });

  it("asks nothing on load; a tap is busy until the town fills the form in", async () => {
    let answer: (value: unknown) => void = () => {};
    locate.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    const onPlace = vi.fn(() => true);
    render(<LocationButton strings={STRINGS} onPlace={onPlace} testId="loc" />);
    expect(locate).not.toHaveBeenCalled();

    const button = screen.getByRole("button", { name: "Use my location" });
    fireEvent.click(button);
    await waitFor(() => expect(button.getAttribute("aria-disabled")).toBe("true"));
    expect(button.textContent).toBe(STRINGS.locating);
    fireEvent.click(button);
    await act(async () => answer({ place: AMSTERDAM, cached: false }));

    expect(locate).toHaveBeenCalledTimes(1);
    expect(onPlace).toHaveBeenCalledWith(AMSTERDAM);
    expect(button.getAttribute("aria-disabled")).toBeNull();
    expect(screen.getByTestId("loc-note").textContent).toBe(STRINGS.locationFound);
    expect(screen.getByTestId("loc-note").getAttribute("aria-live")).toBe("polite");
  });

  it("a refusal leaves the form alone with the polite note, and the button says so afterwards", async () => {
    locate.mockImplementation(async () => {
      appStore.set({ geolocation: { permission: "denied", geocode: null, at: Date.now() } });
      return { place: null, reason: "denied" };
    });
    const onPlace = vi.fn(() => true);
    render(<LocationButton strings={STRINGS} onPlace={onPlace} testId="loc" />);

    fireEvent.click(screen.getByTestId("loc"));

    await waitFor(() => expect(screen.getByTestId("loc-note").textContent).toBe(STRINGS.locationDenied));
    expect(onPlace).not.toHaveBeenCalled();
  });

  it("knows a refusal of an earlier page within the hour", () => {
    localStorage.setItem("geolocation", JSON.stringify({ permission: "denied", geocode: null, at: Date.now() - 1000 }));
    render(<LocationButton strings={STRINGS} onPlace={() => true} testId="loc" />);
    expect(screen.getByTestId("loc-note").textContent).toBe(STRINGS.locationDenied);
  });

  it("no town, or a country the form does not offer, gives the failure note", async () => {
    locate.mockResolvedValueOnce({ place: null, reason: "not_found" }).mockResolvedValueOnce({ place: AMSTERDAM, cached: true });
    render(<LocationButton strings={STRINGS} onPlace={() => false} testId="loc" />);

    fireEvent.click(screen.getByTestId("loc"));
    await waitFor(() => expect(screen.getByTestId("loc-note").textContent).toBe(STRINGS.locationFailed));
    expect(screen.getByTestId("loc").getAttribute("aria-disabled")).toBeNull();

    fireEvent.click(screen.getByTestId("loc"));
    await waitFor(() => expect(locate).toHaveBeenCalledTimes(2));
    await waitFor(() => expect(screen.getByTestId("loc-note").textContent).toBe(STRINGS.locationFailed));
  });
});
