/**
 * The match modal's dialog (MatchDialog.tsx) is a module of its own, imported when the island
 * has a profile to show. This file runs without it loaded beforehand (vitest gives each file
 * its own modules): the island asks for it once auto-like answers with a profile, and shows it
 * once it is there.
 */
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { configureApi, resetApiConfig } from "../../../lib/api";
import { appStore, initialAppState } from "../../../lib/store";
import { MatchModal, resetMatchModal } from "../MatchModal";

beforeEach(() => {
  resetApiConfig();
  configureApi({ reload: vi.fn() });
  resetMatchModal();
  vi.stubGlobal(
    "fetch",
    vi.fn<typeof fetch>(async (input) =>
      String(input).startsWith("/api/auto-like.php")
        ? new Response(JSON.stringify({ profile: { id: 7, name: "Cleo", age: 29, city: "York", main_image: null } }), {
            status: 200,
            headers: { "Content-Type": "application/json" },
          })
        : new Response("{}", { status: 404 }),
    ),
  );
  appStore.set({ ...initialAppState(), user: { id: 1 } });
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  appStore.set(initialAppState());
});

describe("MatchModal, its dialog imported on need", () => {
  it("imports the dialog when auto-like gives a profile, then shows it with the focus on its button", async () => {
    const navigate = vi.fn<(url: string) => void>();
    render(
      <MatchModal
        strings={{ title: "New like!", viewProfile: "View profile", close: "Close" }}
        autoLikeUrl="/api/auto-like.php"
        likesUrl="/api/likes.php"
        profileUrl="/members/{id}"
        navigate={navigate}
      />,
    );
    expect(screen.queryByTestId("match-modal")).toBeNull();
    const modal = await screen.findByTestId("match-modal");
    expect(screen.getByRole("dialog", { name: "New like!" })).toBe(modal);
    expect(screen.getByTestId("match-modal-name").textContent).toBe("Cleo, 29");
    expect(document.activeElement).toBe(screen.getByTestId("match-modal-view"));
  });
});
