import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { configureApi, resetApiConfig } from "../../../lib/api";
import { appStore, initialAppState } from "../../../lib/store";
import { LikeButton } from "../Results";
import { strings } from "./fixtures";

const card = {
  id: 7,
  name: "Bella",
  age: 30,
  city: "Leeds",
  region: "",
  country: "GB",
  main_image: null,
  facts: [],
  notes: [],
  fictional: null,
  is_fictional: false,
  is_cam: false,
};

function json(status: number, data: unknown): Response {
  return new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
}

let fetchMock: ReturnType<typeof vi.fn<typeof fetch>>;

function button() {
  return screen.getByTestId("search-card-like");
}

beforeEach(() => {
  resetApiConfig();
  configureApi({ reload: vi.fn() });
  fetchMock = vi.fn<typeof fetch>();
  vi.stubGlobal("fetch", fetchMock);
  appStore.set({ ...initialAppState(), user: { id: 1 } });
});

afterEach(() => {
  cleanup();
  appStore.set(initialAppState());
});

describe("LikeButton", () => {
  it("likes with a POST, then unlikes with a DELETE", async () => {
    fetchMock.mockResolvedValueOnce(json(200, { like: true, match: false, profile: card }));
    fetchMock.mockResolvedValueOnce(json(200, { like: false }));
    render(<LikeButton card={card} strings={strings} likesUrl="/api/likes.php" loginUrl="/login" />);

    fireEvent.click(button());
    await waitFor(() => expect(screen.getByTestId("search-card-liked").textContent).toBe("Liked"));
    expect(fetchMock.mock.calls[0]![1]!.method).toBe("POST");
    expect(fetchMock.mock.calls[0]![1]!.body).toBe('{"profile":7}');
    expect(button().textContent).toBe("Unlike");
    expect(button().getAttribute("aria-pressed")).toBe("true");

    fireEvent.click(button());
    await waitFor(() => expect(button().textContent).toBe("Like"));
    expect(fetchMock.mock.calls[1]![1]!.method).toBe("DELETE");
    expect(screen.queryByTestId("search-card-liked")).toBeNull();
  });

  it("says when the like made a match", async () => {
    fetchMock.mockResolvedValueOnce(json(200, { like: true, match: true, profile: card }));
    render(<LikeButton card={card} strings={strings} likesUrl="/api/likes.php" loginUrl="/login" />);
    fireEvent.click(button());
    await waitFor(() => expect(screen.getByTestId("search-card-match").textContent).toBe("It's a match!"));
  });

  it("shows the server's message and keeps the state on an error", async () => {
    fetchMock.mockResolvedValueOnce(
      json(404, { error: { code: "unavailable", message: "This profile is not available." } }),
    );
    render(<LikeButton card={card} strings={strings} likesUrl="/api/likes.php" loginUrl="/login" />);
    fireEvent.click(button());
    await waitFor(() =>
      expect(screen.getByTestId("search-card-like-message").textContent).toBe("This profile is not available."),
    );
    expect(button().textContent).toBe("Like");
    expect(fetchMock).toHaveBeenCalledTimes(1); // no retries for a like
  });

  it("gives visitors the login message and calls nothing", () => {
    appStore.set({ user: null });
    render(<LikeButton card={card} strings={strings} likesUrl="/api/likes.php" loginUrl="/login" />);
    fireEvent.click(button());
    const message = screen.getByTestId("search-card-like-message");
    expect(message.textContent).toBe("Log in or sign up to like this profile.");
    expect(message.querySelector("a")!.getAttribute("href")).toBe("/login");
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
