import { StrictMode } from "react";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

import { configureApi, resetApiConfig } from "../../../lib/api";
import { appStore, initialAppState, parseTimeBonus, type AppUser } from "../../../lib/store";
import { formatCountdown, resetCountdown, secondsLeft, setTimeBonus, TICK_MS, TIME_BONUS_SECONDS } from "../countdown";
import { loadTimeBonusModal, MEMBERS_AREA_KEY, resetTimeBonusModal, TimeBonus, type TimeBonusProps } from "../TimeBonus";

const strings: TimeBonusProps["strings"] = {
  bannerText: "Time bonus: {percentage}% off your first credits!",
  bannerTime: "Only {time} left",
  bannerLink: "Get your discount",
  modalTitle: "Your time bonus: {percentage}% off",
  modalBody: "As a new member you get {percentage}% off your first credits. This offer ends in:",
  modalLink: "Get {percentage}% off now",
  timeLeft: "Time left",
  close: "Close",
};

function props(extra: Partial<TimeBonusProps> = {}): TimeBonusProps {
  return {
    strings,
    creditsUrl: "/credits",
    dismissUrl: "/api/dismiss.php",
    dismissal: "time_bonus",
    dismissed: false,
    membersArea: true,
    ...extra,
  };
}

function json(status: number, data: unknown): Response {
  return new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
}

type FetchMock = ReturnType<typeof vi.fn<typeof fetch>>;
let fetchMock: FetchMock;

function member(extra: Partial<AppUser> = {}): AppUser {
  return { id: 7, credits: 0, paid_user: false, ...extra };
}

/** A member whose time bonus has `seconds` left. */
function start(seconds: number, user: AppUser = member()) {
  appStore.set({
    ...initialAppState(),
    user,
    timeBonus: { code: "TIMEBONUS25", percentage: 25, expiresAt: Date.now() + seconds * 1000, isVisible: false },
  });
}

async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

const banner = () => screen.queryByTestId("time-bonus-banner");
const modal = () => screen.queryByTestId("time-bonus-modal");
const shown = () => screen.getAllByTestId("time-bonus-countdown").map((el) => el.textContent);

// The modal's module, which the island imports when the modal is to open (TimeBonusLazy.test.tsx
// tests that), is here from the start.
beforeAll(async () => {
  await loadTimeBonusModal();
});

beforeEach(() => {
  vi.useFakeTimers();
  resetApiConfig();
  configureApi({ reload: vi.fn() });
  resetCountdown();
  resetTimeBonusModal();
  window.sessionStorage.clear();
  fetchMock = vi.fn<typeof fetch>(async (input) =>
    String(input).startsWith("/api/dismiss.php") ? json(200, { alert: "time_bonus" }) : json(404, {}),
  );
  vi.stubGlobal("fetch", fetchMock);
});

afterEach(() => {
  cleanup();
  resetCountdown();
  appStore.set(initialAppState());
  vi.useRealTimers();
  document.body.className = "";
});

describe("formatCountdown and secondsLeft", () => {
  it("shows hours, minutes and seconds with two digits each", () => {
    expect(formatCountdown(0)).toBe("00:00:00");
    expect(formatCountdown(9)).toBe("00:00:09");
    expect(formatCountdown(61)).toBe("00:01:01");
    expect(formatCountdown(3600)).toBe("01:00:00");
    expect(formatCountdown(14_399)).toBe("03:59:59");
    expect(formatCountdown(14_400)).toBe("04:00:00");
    expect(formatCountdown(-5)).toBe("00:00:00");
  });

  it("counts whole seconds left, never more than 4 hours", () => {
    const now = 1_000_000;
    const bonus = { code: "TIMEBONUS25", expiresAt: now + 1500, isVisible: false };
    expect(secondsLeft(bonus, now)).toBe(2);
    expect(secondsLeft({ ...bonus, expiresAt: now }, now)).toBe(0);
    expect(secondsLeft({ ...bonus, expiresAt: now - 5000 }, now)).toBe(0);
    expect(secondsLeft({ ...bonus, expiresAt: now + 99_999_000 }, now)).toBe(TIME_BONUS_SECONDS);
    expect(secondsLeft(null, now)).toBe(0);
  });

  it("reads the page's time bonus by the seconds left, not the browser's clock", () => {
    const now = 5_000_000;
    expect(parseTimeBonus({ code: "TIMEBONUS25", percentage: 25, secondsLeft: 100, expiresAt: 1, isVisible: false }, now))
      .toEqual({ code: "TIMEBONUS25", percentage: 25, expiresAt: now + 100_000, isVisible: false });
    expect(parseTimeBonus({ code: "TIMEBONUS25", expiresAt: now + 10 }, now)?.expiresAt).toBe(now + 10);
    expect(parseTimeBonus({ code: "TIMEBONUS25", secondsLeft: 0 }, now)).toBeNull();
    expect(parseTimeBonus({ secondsLeft: 10 }, now)).toBeNull();
    expect(parseTimeBonus({ code: "TIMEBONUS25", secondsLeft: null, expiresAt: now + 5000, percentage: null }, now)).toEqual({
      code: "TIMEBONUS25",
      expiresAt: now + 5000,
      isVisible: false,
    });
    expect(parseTimeBonus(null, now)).toBeNull();
  });
});

describe("the store", () => {
  it("clears the time bonus on logout, with or without the island", () => {
    start(600);
    expect(appStore.get().timeBonus?.code).toBe("TIMEBONUS25");
    appStore.set({ user: null });
    expect(appStore.get().timeBonus).toBeNull();
  });

  it("sets and clears it with setTimeBonus", () => {
    appStore.set({ ...initialAppState(), user: member() });
    const bonus = { code: "TIMEBONUS25", percentage: 25, expiresAt: Date.now() + 1000, isVisible: false };
    setTimeBonus(bonus);
    expect(appStore.get().timeBonus).toBe(bonus);
    setTimeBonus(null);
    expect(appStore.get().timeBonus).toBeNull();
  });
});

describe("the banner", () => {
  it("shows the discount and the countdown, ticking once per second, linking to the credits page", async () => {
    start(3 * 3600 + 2);
    render(<TimeBonus {...props({ membersArea: false })} />);
    expect(banner()?.textContent).toContain("Time bonus: 25% off your first credits!");
    expect(banner()?.textContent).toContain("Only 03:00:02 left");
    expect(screen.getByTestId("time-bonus-banner-link").getAttribute("href")).toBe("/credits");
    // Screen readers hear the remaining time, not the timer's label in its place.
    expect(
      screen.getByRole("link", {
        name: "Time bonus: 25% off your first credits! Only 03:00:02 left Get your discount",
      }),
    ).toBe(screen.getByTestId("time-bonus-banner-link"));
    expect(screen.getByRole("timer", { name: "Time left: 03:00:02" }).textContent).toBe("03:00:02");

    await advance(TICK_MS - 1);
    expect(shown()).toEqual(["03:00:02"]);
    await advance(1);
    expect(shown()).toEqual(["03:00:01"]);
    await advance(TICK_MS);
    expect(shown()).toEqual(["03:00:00"]);
    await advance(TICK_MS);
    expect(shown()).toEqual(["02:59:59"]);
    expect(screen.getByRole("link", { name: /Only 02:59:59 left/ })).toBeTruthy();
  });

  it("is cleared at zero: banner gone, time bonus gone, no timer left", async () => {
    start(3);
    render(<TimeBonus {...props({ membersArea: false })} />);
    await advance(2 * TICK_MS);
    expect(shown()).toEqual(["00:00:01"]);
    await advance(TICK_MS);
    expect(banner()).toBeNull();
    expect(appStore.get().timeBonus).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("is cleared on logout", async () => {
    start(600);
    render(<TimeBonus {...props({ membersArea: false })} />);
    expect(banner()).not.toBeNull();
    act(() => appStore.set({ user: null }));
    expect(banner()).toBeNull();
    expect(appStore.get().timeBonus).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("is cleared when the member becomes a paid user", async () => {
    start(600);
    render(<TimeBonus {...props({ membersArea: false })} />);
    await advance(TICK_MS);
    act(() => appStore.set({ user: member({ paid_user: true, credits: 50 }) }));
    expect(banner()).toBeNull();
    expect(appStore.get().timeBonus).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("never counts more than 4 hours", () => {
    start(10 * 3600);
    render(<TimeBonus {...props({ membersArea: false })} />);
    expect(shown()).toEqual(["04:00:00"]);
  });

  it("shows nothing without a time bonus", async () => {
    appStore.set({ ...initialAppState(), user: member() });
    render(<TimeBonus {...props()} />);
    await advance(60_000);
    expect(banner()).toBeNull();
    expect(modal()).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("runs one countdown however often it is mounted (one interval, also in StrictMode)", async () => {
    start(100);
    const first = render(
      <StrictMode>
        <TimeBonus {...props({ membersArea: false })} />
      </StrictMode>,
    );
    render(<TimeBonus {...props({ membersArea: false })} />);
    expect(vi.getTimerCount()).toBe(1);
    await advance(TICK_MS);
    expect(shown()).toEqual(["00:01:39", "00:01:39"]);
    first.unmount();
    expect(vi.getTimerCount()).toBe(1);
    await advance(TICK_MS);
    expect(shown()).toEqual(["00:01:38"]);
    cleanup();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("the time-bonus modal", () => {
  it("opens 40 s after entering the members area at 0 credits, with the countdown and the credits link", async () => {
    start(3600);
    render(<TimeBonus {...props()} />);
    await advance(39_999);
    expect(modal()).toBeNull();
    await advance(1);
    const dialog = screen.getByTestId("time-bonus-modal");
    expect(document.getElementById(dialog.getAttribute("aria-labelledby")!)?.textContent).toBe(
      "Your time bonus: 25% off",
    );
    expect(screen.getByTestId("time-bonus-modal-time").textContent).toBe("00:59:20");
    expect(screen.getByTestId("time-bonus-modal-link").getAttribute("href")).toBe("/credits");
    expect(screen.getByTestId("time-bonus-modal-link").textContent).toBe("Get 25% off now");
    expect(appStore.get().timeBonus?.isVisible).toBe(true);
    expect(document.documentElement.classList.contains("dialog-open")).toBe(true);
    await advance(TICK_MS);
    expect(screen.getByTestId("time-bonus-modal-time").textContent).toBe("00:59:19");
  });

  it("does not open when the member has credits", async () => {
    start(3600, member({ credits: 5 }));
    render(<TimeBonus {...props()} />);
    await advance(120_000);
    expect(modal()).toBeNull();
    expect(banner()).not.toBeNull();
  });

  it("looks at the credits when the 40 s are over", async () => {
    start(3600, member({ credits: 3 }));
    render(<TimeBonus {...props()} />);
    await advance(20_000);
    act(() => appStore.set({ user: member({ credits: 0 }) }));
    await advance(20_000);
    expect(modal()).not.toBeNull();
  });

  it("does not open outside the members area, and leaving the area forgets the entry time", async () => {
    window.sessionStorage.setItem(MEMBERS_AREA_KEY, String(Date.now() - 30_000));
    start(3600);
    render(<TimeBonus {...props({ membersArea: false })} />);
    await advance(120_000);
    expect(modal()).toBeNull();
    expect(window.sessionStorage.getItem(MEMBERS_AREA_KEY)).toBeNull();
  });

  it("counts the 40 s from entering the members area, not from each page", async () => {
    window.sessionStorage.setItem(MEMBERS_AREA_KEY, String(Date.now() - 30_000));
    start(3600);
    render(<TimeBonus {...props()} />);
    await advance(9_999);
    expect(modal()).toBeNull();
    await advance(1);
    expect(modal()).not.toBeNull();
  });

  it("does not open once dismissed before", async () => {
    start(3600);
    render(<TimeBonus {...props({ dismissed: true })} />);
    await advance(120_000);
    expect(modal()).toBeNull();
    expect(banner()).not.toBeNull();
  });

  it.each(["button", "backdrop", "escape"] as const)(
    "stores the dismissal when closed (%s) and does not open again",
    async (how) => {
      start(3600);
      render(<TimeBonus {...props()} />);
      await advance(40_000);
      const dialog = screen.getByTestId("time-bonus-modal");
      fireEvent.click(dialog.querySelector(".modal-body")!);
      expect(modal()).not.toBeNull();
      if (how === "button") fireEvent.click(screen.getByTestId("time-bonus-modal-close"));
      else if (how === "backdrop") fireEvent.click(dialog);
      else fireEvent.keyDown(dialog, { key: "Escape" });
      expect(modal()).toBeNull();
      expect(banner()).not.toBeNull();
      expect(appStore.get().timeBonus?.isVisible).toBe(false);
      expect(document.documentElement.classList.contains("dialog-open")).toBe(false);
      await advance(0);
      expect(fetchMock).toHaveBeenCalledTimes(1);
      const [url, init] = fetchMock.mock.calls[0];
      expect(String(url)).toBe("/api/dismiss.php");
      expect(init?.method).toBe("POST");
      expect(JSON.parse(String(init?.body))).toEqual({ alert: "time_bonus" });

      await advance(120_000);
      expect(modal()).toBeNull();
      // Another mount on the same page does not open it either.
      render(<TimeBonus {...props()} />);
      await advance(120_000);
      expect(modal()).toBeNull();
    },
  );

  it("closes when the time bonus ends", async () => {
    start(45);
    render(<TimeBonus {...props()} />);
    await advance(40_000);
    expect(modal()).not.toBeNull();
    await advance(5_000);
    expect(modal()).toBeNull();
    expect(banner()).toBeNull();
    expect(document.documentElement.classList.contains("dialog-open")).toBe(false);
  });
});
