import { StrictMode } from "react";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

// On a member's page the base entry has loaded its member code (base/member.ts) before the
// match modal reloads the likes through it; here it is loaded up front the same way.
import "../../../base/member";
import { configureApi, resetApiConfig } from "../../../lib/api";
import { appStore, initialAppState } from "../../../lib/store";
import { LIKES_RELOAD_DELAY_MS, MatchModal, loadMatchDialog, resetMatchModal, type LikeCard, type MatchModalProps } from "../MatchModal";

const card: LikeCard = {
  id: 42,
  name: "Anna",
  age: 31,
  city: "Leeds",
  region: "West Yorkshire",
  country: "GB",
  main_image: { thumb_filename: "/media/photos/thumbs/anna.jpg", match_filename: "/media/photos/anna.jpg" },
  is_fictional: false,
  is_cam: false,
};

function json(status: number, data: unknown): Response {
  return new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
}

type FetchMock = ReturnType<typeof vi.fn<typeof fetch>>;
let fetchMock: FetchMock;
let answer: () => Response;
let navigate: ReturnType<typeof vi.fn<(url: string) => void>>;

function props(extra: Partial<MatchModalProps> = {}): MatchModalProps {
  return {
    strings: { title: "New like!", viewProfile: "View profile", close: "Close" },
    autoLikeUrl: "/api/auto-like.php",
    likesUrl: "/api/likes.php",
    profileUrl: "/members/{id}",
    navigate,
    ...extra,
  };
}

function urls(): string[] {
  return fetchMock.mock.calls.map((call) => String(call[0]));
}

async function settle() {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(0);
  });
}

// The modal's module, which the island imports when it has a profile to show (tested in
// MatchModalLazy.test.tsx), is here from the start.
beforeAll(async () => {
  await loadMatchDialog();
});

beforeEach(() => {
  vi.useFakeTimers();
  resetApiConfig();
  configureApi({ reload: vi.fn() });
  resetMatchModal();
  navigate = vi.fn<(url: string) => void>();
  answer = () => json(200, { profile: card });
  fetchMock = vi.fn<typeof fetch>(async (input) => {
    const url = String(input);
    if (url.startsWith("/api/auto-like.php")) return answer();
    if (url.startsWith("/api/likes.php")) return json(200, { profiles: [], liked_by: [], matches: [], num_new: 4 });
    return json(404, {});
  });
  vi.stubGlobal("fetch", fetchMock);
  appStore.set({ ...initialAppState(), user: { id: 1 }, totals: { unreadMessages: 1, newLikes: 5 } });
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  appStore.set(initialAppState());
  document.body.className = "";
});

describe("MatchModal", () => {
  it("shows 'New like!' with the profile's photo, name, age and city", async () => {
    render(<MatchModal {...props()} />);
    await settle();
    expect(urls()).toEqual(["/api/auto-like.php"]);
    const modal = screen.getByTestId("match-modal");
    expect(screen.getByRole("dialog", { name: "New like!" })).toBe(modal);
    expect(document.getElementById(modal.getAttribute("aria-labelledby")!)?.textContent).toBe("New like!");
    expect(screen.getByTestId("match-modal-name").textContent).toBe("Anna, 31");
    expect(modal.textContent).toContain("Leeds");
    // The large picture, not the lists' thumbnail, filling the circle without stretching.
    const img = screen.getByRole("img");
    expect(img.getAttribute("src")).toBe("/media/photos/anna.jpg");
    expect(img.classList.contains("object-fit-cover")).toBe(true);
    expect(screen.getByTestId("match-modal-view").textContent).toBe("View profile");
    expect(document.documentElement.classList.contains("dialog-open")).toBe(true);
    expect(modal.querySelector("[style]")).toBeNull(); // CSP: no inline styles
  });

  it("match modal shows the silhouette, not an initial, when the profile has no photo", async () => {
    answer = () => json(200, { profile: { ...card, main_image: null } });
    render(<MatchModal {...props()} />);
    await settle();
    const photo = screen.getByTestId("match-modal-photo");
    expect(photo.querySelector("img")).toBeNull();
    expect(photo.querySelector("[data-testid='match-modal-silhouette']")?.getAttribute("aria-hidden")).toBe("true");
    expect(photo.textContent).toBe("");
  });

  it("shows nothing when the answer is null, and nothing on errors", async () => {
    answer = () => json(200, { profile: null });
    const { unmount } = render(<MatchModal {...props()} />);
    await settle();
    expect(screen.queryByTestId("match-modal")).toBeNull();
    unmount();

    resetMatchModal();
    answer = () => json(500, { error: { code: "error", message: "Boom" } });
    const error = vi.spyOn(console, "error");
    render(<MatchModal {...props()} />);
    await settle();
    expect(screen.queryByTestId("match-modal")).toBeNull();
    expect(error).not.toHaveBeenCalled();
  });

  it("opens for a match made on the page (the swipe game's window event)", async () => {
    answer = () => json(200, { profile: null });
    render(<MatchModal {...props()} />);
    await settle();
    expect(screen.queryByTestId("match-modal")).toBeNull();
    act(() => {
      window.dispatchEvent(new CustomEvent("match", { detail: { profile: { ...card, name: "Bella" } } }));
    });
    expect(screen.getByTestId("match-modal-name").textContent).toBe("Bella, 31");
    act(() => {
      window.dispatchEvent(new CustomEvent("match", { detail: { profile: "not a card" } }));
    });
    expect(screen.getByTestId("match-modal-name").textContent).toBe("Bella, 31");
  });

  it("does not call auto-like for visitors", async () => {
    appStore.set({ user: null });
    render(<MatchModal {...props()} />);
    await settle();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("closes on a click anywhere without navigating", async () => {
    render(<MatchModal {...props()} />);
    await settle();
    fireEvent.click(screen.getByTestId("match-modal-name"));
    expect(screen.queryByTestId("match-modal")).toBeNull();
    expect(navigate).not.toHaveBeenCalled();
    expect(document.documentElement.classList.contains("dialog-open")).toBe(false);
  });

  it("closes on Escape", async () => {
    render(<MatchModal {...props()} />);
    await settle();
    fireEvent.keyDown(screen.getByTestId("match-modal"), { key: "Escape" });
    expect(screen.queryByTestId("match-modal")).toBeNull();
  });

  it("pressing the button goes to the profile with its id and closes", async () => {
    render(<MatchModal {...props()} />);
    await settle();
    fireEvent.click(screen.getByTestId("match-modal-view"));
    expect(navigate).toHaveBeenCalledExactlyOnceWith("/members/42");
    expect(screen.queryByTestId("match-modal")).toBeNull();
  });

  it("pressing the photo passes the id to onSelect when the caller gives one", async () => {
    const onSelect = vi.fn();
    render(<MatchModal {...props({ onSelect })} />);
    await settle();
    fireEvent.click(screen.getByRole("img"));
    expect(onSelect).toHaveBeenCalledExactlyOnceWith(42);
    expect(navigate).not.toHaveBeenCalled();
    expect(screen.queryByTestId("match-modal")).toBeNull();
  });

  it("reloads the likes 500 ms after the answer and updates the totals", async () => {
    render(<MatchModal {...props()} />);
    await settle();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(LIKES_RELOAD_DELAY_MS - 1);
    });
    expect(urls()).toEqual(["/api/auto-like.php"]);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
    await settle();
    expect(urls()).toEqual(["/api/auto-like.php", "/api/likes.php"]);
    expect(appStore.get().totals).toEqual({ unreadMessages: 1, newLikes: 4 });
  });

  it("calls auto-like once per page, also in StrictMode", async () => {
    render(
      <StrictMode>
        <MatchModal {...props()} />
      </StrictMode>,
    );
    await settle();
    expect(screen.getByTestId("match-modal")).toBeTruthy();
    cleanup();
    render(<MatchModal {...props()} />);
    await settle();
    expect(urls().filter((u) => u.startsWith("/api/auto-like.php"))).toHaveLength(1);
  });
});
