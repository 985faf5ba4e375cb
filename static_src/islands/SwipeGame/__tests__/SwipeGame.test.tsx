import { act, cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { configureApi, resetApiConfig } from "../../../lib/api";
import { card, cards } from "../../Search/__tests__/fixtures";
import { navigation, SWIPE_THRESHOLD, SwipeGame, waitText } from "../SwipeGame";
import type { SwipeGameProps, SwipeStrings } from "../types";

configure({ asyncUtilTimeout: 5000 });

const strings: SwipeStrings = {
  like: "Like",
  pass: "Pass",
  likesLeft: "Likes left today: {count}",
  limitReached: "You have used your 4 likes for today. New likes in {wait}.",
  waitHours: "{hours} h {minutes} min",
  waitMinutes: "{minutes} min",
  matchTitle: "It's a match!",
  matchBody: "You and {name} like each other.",
  matchLink: "View profile",
  close: "Close",
  empty: "There is nobody new to swipe right now.",
  emptyLink: "Search members",
  signup: "Sign up for free",
  loading: "Loading…",
  noPhoto: "No photo",
  fictional: "Fictional profile",
  hint: "Swipe right to like, left to pass, or use the arrow keys.",
  keys: "Keyboard: the left arrow key passes, the right arrow key likes.",
  error: "An error has occurred.",
};

function makeProps(overrides: Partial<SwipeGameProps> = {}): SwipeGameProps {
  return {
    strings,
    mode: "member",
    apiUrl: "/api/swipe.php",
    profileUrl: "/members/{id}",
    membersUrl: "/members",
    deck: cards(1, 5),
    likesLeft: 4,
    nextLikesAt: null,
    ...overrides,
  };
}

function json(status: number, data: unknown): Response {
  return new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
}

type Handler = (method: string, body: unknown) => Response;

/** A fetch for /api/swipe.php that records the calls. */
function fakeApi(handler: Handler) {
  const calls: { method: string; body: unknown }[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), "http://localhost");
    if (url.pathname !== "/api/swipe.php") throw new Error(`unexpected call ${url}`);
    const method = init?.method ?? "GET";
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, body });
    return handler(method, body);
  });
  configureApi({ fetch: fetchMock as unknown as typeof fetch, baseDelayMs: 0 });
  return { calls, posts: () => calls.filter((c) => c.method === "POST").map((c) => c.body) };
}

/** Likes count down from `left`; GET answers an empty deck. */
function counting(left: number, match = false): Handler {
  return (method) => {
    if (method === "GET") return json(200, { deck: [], likes_left: left, next_likes_at: null });
    return json(200, { match, likes_left: left, next_likes_at: null });
  };
}

const topName = () => screen.getByTestId("swipe-card-name").textContent;

beforeEach(() => {
  resetApiConfig();
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe("SwipeGame", () => {
  it("shows the top card and the likes left", () => {
    fakeApi(counting(4));
    render(<SwipeGame {...makeProps({ deck: [card(1, { name: "Anna", age: 31, city: "York" }), ...cards(2, 4)] })} />);
    expect(topName()).toBe("Anna");
    expect(screen.getByTestId("swipe-card-age").textContent).toBe(", 31");
    expect(screen.getByTestId("swipe-card-fact-place").textContent).toBe("York");
    expect(screen.getByTestId("swipe-likes-left").textContent).toBe("Likes left today: 4");
    expect(screen.getAllByTestId("swipe-card")).toHaveLength(1);
  });

  it("likes and passes with the buttons", async () => {
    let left = 4;
    const api = fakeApi((method, body) => {
      if (method === "GET") return json(200, { deck: [], likes_left: left, next_likes_at: null });
      if ((body as { action: string }).action === "like") left -= 1;
      return json(200, { match: false, likes_left: left, next_likes_at: null });
    });
    render(<SwipeGame {...makeProps()} />);
    fireEvent.click(screen.getByTestId("swipe-like"));
    await waitFor(() => expect(topName()).toBe("Member 2"));
    expect(screen.getByTestId("swipe-likes-left").textContent).toBe("Likes left today: 3");
    fireEvent.click(screen.getByTestId("swipe-pass"));
    await waitFor(() => expect(topName()).toBe("Member 3"));
    expect(api.posts()).toEqual([
      { profile: 1, action: "like" },
      { profile: 2, action: "pass" },
    ]);
  });

  it("likes with ArrowRight and passes with ArrowLeft", async () => {
    const api = fakeApi(counting(3));
    render(<SwipeGame {...makeProps()} />);
    fireEvent.keyDown(window, { key: "ArrowRight" });
    await waitFor(() => expect(topName()).toBe("Member 2"));
    fireEvent.keyDown(window, { key: "ArrowLeft" });
    await waitFor(() => expect(topName()).toBe("Member 3"));
    expect(api.posts()).toEqual([
      { profile: 1, action: "like" },
      { profile: 2, action: "pass" },
    ]);
  });

  it("tells screen readers the keys and the card on top, also while a button has focus", async () => {
    const api = fakeApi(counting(3));
    render(<SwipeGame {...makeProps()} />);
    const pass = screen.getByTestId("swipe-pass");
    const like = screen.getByTestId("swipe-like");
    expect(pass.getAttribute("aria-keyshortcuts")).toBe("ArrowLeft");
    expect(like.getAttribute("aria-keyshortcuts")).toBe("ArrowRight");
    const keys = screen.getByTestId("swipe-keys");
    expect(keys.className).toContain("visually-hidden");
    expect(keys.textContent).toBe("Keyboard: the left arrow key passes, the right arrow key likes.");
    expect(pass.getAttribute("aria-describedby")).toBe(keys.id);
    expect(like.getAttribute("aria-describedby")).toBe(keys.id);
    expect(screen.getByTestId("swipe-current").getAttribute("aria-live")).toBe("polite");
    expect(screen.getByTestId("swipe-current").textContent).toBe("Member 1, 30");
    like.focus();
    fireEvent.keyDown(like, { key: "ArrowLeft" });
    await waitFor(() => expect(screen.getByTestId("swipe-current").textContent).toBe("Member 2, 30"));
    expect(api.posts()).toEqual([{ profile: 1, action: "pass" }]);
  });

  it("counts a drag as a swipe only beyond the threshold", async () => {
    const api = fakeApi(counting(3));
    render(<SwipeGame {...makeProps()} />);
    const drag = (dx: number) => {
      const el = screen.getByTestId("swipe-card");
      fireEvent.pointerDown(el, { pointerId: 1, clientX: 200, button: 0 });
      fireEvent.pointerMove(el, { pointerId: 1, clientX: 200 + dx / 2 });
      fireEvent.pointerMove(el, { pointerId: 1, clientX: 200 + dx });
      fireEvent.pointerUp(el, { pointerId: 1, clientX: 200 + dx });
    };
    drag(SWIPE_THRESHOLD - 20);
    expect(topName()).toBe("Member 1");
    expect(screen.getByTestId("swipe-card").style.transform).toBe("");
    expect(api.calls).toHaveLength(0);

    drag(SWIPE_THRESHOLD + 40);
    await waitFor(() => expect(topName()).toBe("Member 2"));
    drag(-(SWIPE_THRESHOLD + 40));
    await waitFor(() => expect(topName()).toBe("Member 3"));
    expect(api.posts()).toEqual([
      { profile: 1, action: "like" },
      { profile: 2, action: "pass" },
    ]);
  });

  it("moves the card with the pointer while dragging", () => {
    fakeApi(counting(3));
    render(<SwipeGame {...makeProps()} />);
    const el = screen.getByTestId("swipe-card");
    fireEvent.pointerDown(el, { pointerId: 1, clientX: 100, button: 0 });
    fireEvent.pointerMove(el, { pointerId: 1, clientX: 160 });
    expect(el.style.transform).toContain("translateX(60px)");
    expect(el.classList.contains("swipe-card-like")).toBe(true);
  });

  it("shows the wait at the limit, counts down each minute and disables like", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    vi.setSystemTime(new Date("2025-03-01T18:48:00Z"));
    const api = fakeApi(counting(0));
    render(<SwipeGame {...makeProps({ likesLeft: 0, nextLikesAt: "2025-03-02T00:00:00+00:00" })} />);
    expect(screen.getByTestId("swipe-limit").textContent).toBe(
      "You have used your 4 likes for today. New likes in 5 h 12 min.",
    );
    expect((screen.getByTestId("swipe-like") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.keyDown(window, { key: "ArrowRight" });
    expect(api.posts()).toEqual([]);
    await act(async () => {
      vi.advanceTimersByTime(60000);
    });
    expect(screen.getByTestId("swipe-limit").textContent).toContain("New likes in 5 h 11 min.");
    // Passing still works.
    fireEvent.click(screen.getByTestId("swipe-pass"));
    await waitFor(() => expect(api.posts()).toEqual([{ profile: 1, action: "pass" }]));
  });

  it("reaches the limit after the fourth like, and on a 429", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    vi.setSystemTime(new Date("2025-03-01T23:30:00Z"));
    let calls = 0;
    fakeApi((method) => {
      if (method === "GET") return json(200, { deck: [], likes_left: 1, next_likes_at: null });
      calls += 1;
      if (calls === 1) return json(200, { match: false, likes_left: 0, next_likes_at: "2025-03-02T00:00:00+00:00" });
      return json(429, { error: { code: "swipe_limit", message: "limit" } });
    });
    render(<SwipeGame {...makeProps({ likesLeft: 1 })} />);
    fireEvent.click(screen.getByTestId("swipe-like"));
    await waitFor(() => expect(screen.getByTestId("swipe-limit").textContent).toContain("New likes in 30 min."));
    expect((screen.getByTestId("swipe-like") as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId("swipe-likes-left").textContent).toBe("Likes left today: 0");
    cleanup();

    render(<SwipeGame {...makeProps({ likesLeft: 2 })} />);
    fireEvent.click(screen.getByTestId("swipe-like"));
    await waitFor(() => expect(screen.getByTestId("swipe-limit")).toBeTruthy());
    expect(topName()).toBe("Member 1"); // the card stays
    expect((screen.getByTestId("swipe-like") as HTMLButtonElement).disabled).toBe(true);
  });

  it("shows a match notice and dispatches the match event", async () => {
    fakeApi(counting(3, true));
    const events: unknown[] = [];
    const listener = (event: Event) => events.push((event as CustomEvent).detail);
    window.addEventListener("match", listener);
    try {
      render(<SwipeGame {...makeProps({ deck: [card(7, { name: "Bea" }), ...cards(8, 4)] })} />);
      fireEvent.click(screen.getByTestId("swipe-like"));
      await waitFor(() => expect(screen.getByTestId("swipe-match-title").textContent).toBe("It's a match!"));
      expect(screen.getByTestId("swipe-match").textContent).toContain("You and Bea like each other.");
      expect(screen.getByTestId("swipe-match-link").getAttribute("href")).toBe("/members/7");
      expect(events).toEqual([{ profile: expect.objectContaining({ id: 7, name: "Bea" }) }]);
      fireEvent.click(screen.getByTestId("swipe-match-close"));
      expect(screen.queryByTestId("swipe-match")).toBeNull();
    } finally {
      window.removeEventListener("match", listener);
    }
  });

  it("fetches more cards when the deck runs low, then shows the empty state", async () => {
    let gets = 0;
    const api = fakeApi((method) => {
      if (method === "GET") {
        gets += 1;
        return json(200, { deck: gets === 1 ? cards(20, 2) : [], likes_left: 4, next_likes_at: null });
      }
      return json(200, { match: false, likes_left: 4, next_likes_at: null });
    });
    render(<SwipeGame {...makeProps({ deck: cards(1, 1) })} />);
    await waitFor(() => expect(gets).toBeGreaterThanOrEqual(1));
    fireEvent.click(screen.getByTestId("swipe-pass"));
    await waitFor(() => expect(topName()).toBe("Member 20"));
    fireEvent.click(screen.getByTestId("swipe-pass"));
    await waitFor(() => expect(topName()).toBe("Member 21"));
    fireEvent.click(screen.getByTestId("swipe-pass"));
    await waitFor(() => expect(screen.getByTestId("swipe-empty")).toBeTruthy());
    expect(screen.getByTestId("swipe-empty").querySelector("a")?.getAttribute("href")).toBe("/members");
    expect(api.posts().map((b) => (b as { profile: number }).profile)).toEqual([1, 20, 21]);
    expect(gets).toBeLessThan(5);
  });

  it("in visitor mode makes no API calls and opens the signup after two swipes", () => {
    const api = fakeApi(counting(4));
    const assign = vi.spyOn(navigation, "assign").mockImplementation(() => {});
    render(
      <SwipeGame
        {...makeProps({ mode: "visitor", likesLeft: null, freeSwipes: 2, signupUrl: "/signup?next=/swipe-game" })}
      />,
    );
    expect(screen.queryByTestId("swipe-likes-left")).toBeNull();
    fireEvent.click(screen.getByTestId("swipe-like"));
    fireEvent.keyDown(window, { key: "ArrowLeft" });
    expect(topName()).toBe("Member 3");
    expect(assign).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId("swipe-like"));
    expect(assign).toHaveBeenCalledWith("/signup?next=/swipe-game");
    expect(api.calls).toHaveLength(0);
  });
});

describe("waitText", () => {
  it("rounds minutes up", () => {
    const now = new Date("2025-03-01T18:48:00Z");
    expect(waitText(strings, "2025-03-02T00:00:00Z", now)).toBe("5 h 12 min");
    expect(waitText(strings, "2025-03-01T18:59:01Z", now)).toBe("12 min");
  });
});
