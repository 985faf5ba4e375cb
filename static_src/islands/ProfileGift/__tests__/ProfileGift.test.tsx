import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

import { resetApiConfig } from "../../../lib/api";
import { appStore } from "../../../lib/store";
import { apiError, fakeApi, json } from "../../Chat/__tests__/fixtures";
import { ProfileGift, type ProfileGiftProps } from "../ProfileGift";
import { loadDialog } from "../../../lib/LazyDialog";

const GIFTS = [
  { id: 1, name: "Rose", emoji: "🌹", image: "/static/gifts/rose.svg" },
  { id: 2, name: "Kiss", emoji: "💋", image: "/static/gifts/kiss.svg" },
];

function props(extra: Partial<ProfileGiftProps> = {}): ProfileGiftProps {
  return {
    strings: {
      sendGift: "Send a gift",
      giftsTitle: "Send {name} a gift",
      loading: "Loading…",
      noGifts: "There are no gifts right now.",
      noCredits: "You do not have enough credits",
      buyCredits: "Buy credits",
      premiumRequired: "This feature is only available for premium members.",
      getPremium: "Get Premium",
      sent: "Your gift ({gift}) is on its way to {name}.",
      openChat: "Go to the conversation",
      error: "An error has occurred.",
      close: "Close",
    },
    profileId: 42,
    profileName: "Anna",
    credits: 10,
    cost: 3,
    costLabel: "3 credits",
    urls: {
      gifts: "/api/gifts.php",
      chat: "/api/chat.php",
      message: "/api/message.php",
      credits: "/credits",
      premium: "/premium",
      conversation: "/chats/{id}",
    },
    ...extra,
  };
}

// The dialog's module, which the page imports when the dialog first opens (lib/LazyDialog.tsx,
// tested there), is here from the start.
beforeAll(async () => {
  await loadDialog();
});

beforeEach(() => {
  resetApiConfig();
  appStore.set({ user: null });
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("ProfileGift", () => {
  it("opens the picker, sends the chosen gift to the profile's conversation and links to it", async () => {
    appStore.set({ user: { id: 7, credits: 10 } as never });
    const calls = fakeApi((call) => {
      if (call.path === "/api/gifts.php") return json(200, { gifts: GIFTS, credits: 3 });
      if (call.path === "/api/chat.php") return json(200, { conversation: 5 });
      if (call.path === "/api/message.php") return json(201, { message: { id: 1 }, credits: 7 });
      return undefined;
    });
    render(<ProfileGift {...props()} />);
    const button = screen.getByTestId("profile-gift");
    expect(button.getAttribute("aria-haspopup")).toBe("dialog");
    fireEvent.click(button);
    expect(screen.getByTestId("profile-gifts").textContent).toContain("Send Anna a gift (3 credits)");
    const rose = await screen.findByRole("button", { name: "Rose" });
    expect(rose.querySelector("img")!.getAttribute("alt")).toBe("Rose");
    await act(async () => {
      fireEvent.click(rose);
    });
    const outcome = await screen.findByTestId("profile-gift-outcome");
    expect(outcome.textContent).toContain("Your gift (Rose) is on its way to Anna.");
    expect(screen.getByTestId("profile-gift-chat").getAttribute("href")).toBe("/chats/5");
    await waitFor(() => expect(document.activeElement).toBe(outcome));
    const posts = calls.filter((call) => call.method === "POST");
    expect(posts.map((call) => call.path)).toEqual(["/api/chat.php", "/api/message.php"]);
    expect(posts[0]!.body).toEqual({ profile: 42 });
    expect(posts[1]!.body).toMatchObject({ conversation: 5, gift: 1 });
    expect(String((posts[1]!.body as { client_id: string }).client_id)).toMatch(/^gift-/);
    expect(appStore.get().user?.credits).toBe(7);
  });

  it("without enough credits: the message and the way to the credits page, nothing sent", async () => {
    const calls = fakeApi(() => json(200, { gifts: GIFTS }));
    render(<ProfileGift {...props({ credits: 2 })} />);
    fireEvent.click(screen.getByTestId("profile-gift"));
    expect(screen.getByTestId("profile-gift-outcome").textContent).toContain("You do not have enough credits");
    expect(screen.getByTestId("profile-gift-credits").getAttribute("href")).toBe("/credits");
    expect(calls).toEqual([]);
  });

  it("a 402 from the server also leads to the credits page; a 403 premium_required to premium", async () => {
    let answer = apiError(402, "not_enough_credits", "You do not have enough credits");
    fakeApi((call) => {
      if (call.path === "/api/gifts.php") return json(200, { gifts: GIFTS });
      if (call.path === "/api/chat.php") return json(200, { conversation: 5 });
      if (call.path === "/api/message.php") return answer;
      return undefined;
    });
    render(<ProfileGift {...props()} />);
    fireEvent.click(screen.getByTestId("profile-gift"));
    const kiss = await screen.findByRole("button", { name: "Kiss" });
    await act(async () => {
      fireEvent.click(kiss);
    });
    expect((await screen.findByTestId("profile-gift-credits")).getAttribute("href")).toBe("/credits");

    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    answer = apiError(403, "premium_required", "Premium only.");
    fireEvent.click(screen.getByTestId("profile-gift"));
    const again = await screen.findByRole("button", { name: "Kiss" });
    await act(async () => {
      fireEvent.click(again);
    });
    expect((await screen.findByTestId("profile-gift-premium")).getAttribute("href")).toBe("/premium");
    expect(screen.getByTestId("profile-gift-outcome").textContent).toContain("Premium only.");
  });
});
