/**
 * The time-bonus modal's dialog (TimeBonusModal.tsx) is a module of its own, imported when the
 * modal is to open. This file runs without it loaded beforehand (vitest gives each file its own
 * modules): the banner shows at once, and the modal once its module is there.
 */
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { appStore, initialAppState } from "../../../lib/store";
import { resetCountdown } from "../countdown";
import { MEMBERS_AREA_KEY, resetTimeBonusModal, TimeBonus } from "../TimeBonus";

afterEach(() => {
  cleanup();
  resetCountdown();
  resetTimeBonusModal();
  appStore.set(initialAppState());
  window.sessionStorage.clear();
  document.documentElement.className = "";
});

describe("TimeBonus, its modal imported on need", () => {
  it("shows the banner at once and the modal once its module is there", async () => {
    // In the members area for a minute already: the modal is due at once.
    window.sessionStorage.setItem(MEMBERS_AREA_KEY, String(Date.now() - 60_000));
    appStore.set({
      ...initialAppState(),
      user: { id: 7, credits: 0, paid_user: false },
      timeBonus: { code: "TIMEBONUS25", percentage: 25, expiresAt: Date.now() + 3_600_000, isVisible: false },
    });
    render(
      <TimeBonus
        strings={{
          bannerText: "{percentage}% off",
          bannerTime: "only {time} left",
          bannerLink: "Get it",
          modalTitle: "Your time bonus: {percentage}% off",
          modalBody: "Buy credits now.",
          modalLink: "Get {percentage}% off now",
          timeLeft: "Time left",
          close: "Close",
        }}
        creditsUrl="/credits"
        dismissUrl="/api/dismiss.php"
        dismissal="time_bonus"
        dismissed={false}
        membersArea
      />,
    );
    expect(screen.getByTestId("time-bonus-banner")).toBeTruthy();
    expect(screen.queryByTestId("time-bonus-modal")).toBeNull();
    const dialog = await screen.findByTestId("time-bonus-modal");
    expect(screen.getByRole("dialog", { name: "Your time bonus: 25% off" })).toBe(dialog);
    expect(screen.getByTestId("time-bonus-modal-link").textContent).toBe("Get 25% off now");
  });
});
