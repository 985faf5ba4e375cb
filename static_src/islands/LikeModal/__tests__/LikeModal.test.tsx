import { StrictMode } from "react";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

import { LikeModal, parseDelay, resetLikeModal, type LikeModalProps } from "../LikeModal";
import { loadDialog } from "../../../lib/LazyDialog";

const props: LikeModalProps = {
  strings: {
    title: "Like someone?",
    body: "Members you like get a message.\nTry it now.",
    swipe: "Play the swipe game",
    members: "Search members",
    close: "Close",
  },
  swipeUrl: "/swipe-game",
  membersUrl: "/members",
};

function go(url: string) {
  window.history.replaceState(null, "", url);
}

function address(): string {
  return window.location.pathname + window.location.search + window.location.hash;
}

async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

// The dialog's module, which the page imports when the dialog first opens (lib/LazyDialog.tsx,
// tested there), is here from the start.
beforeAll(async () => {
  await loadDialog();
});

beforeEach(() => {
  vi.useFakeTimers();
  resetLikeModal();
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  go("/");
  document.body.className = "";
});

describe("parseDelay", () => {
  it("accepts integers 0..3600 only", () => {
    expect(parseDelay("0")).toBe(0);
    expect(parseDelay("15")).toBe(15);
    expect(parseDelay("3600")).toBe(3600);
    for (const bad of [null, "", "3601", "-1", "1.5", "abc", "1e3", "10s"]) expect(parseDelay(bad)).toBeNull();
  });
});

describe("LikeModal", () => {
  it("removes t from the address at once, keeping the rest, and shows after t seconds", async () => {
    go("/members/5?a=1&t=10&b=2#photos");
    render(<LikeModal {...props} />);
    expect(address()).toBe("/members/5?a=1&b=2#photos");
    expect(screen.queryByTestId("like-modal")).toBeNull();

    await advance(9_999);
    expect(screen.queryByTestId("like-modal")).toBeNull();
    await advance(1);
    const modal = screen.getByTestId("like-modal");
    expect(document.getElementById(modal.getAttribute("aria-labelledby")!)?.textContent).toBe("Like someone?");
    expect(modal.textContent).toContain("Members you like get a message.");
    expect(screen.getByTestId("like-modal-swipe").getAttribute("href")).toBe("/swipe-game");
    expect(screen.getByTestId("like-modal-members").getAttribute("href")).toBe("/members");
    expect(document.documentElement.classList.contains("dialog-open")).toBe(true);
    expect(modal.querySelector("[style]")).toBeNull();
  });

  it("works in StrictMode (t read once)", async () => {
    go("/?t=2");
    render(
      <StrictMode>
        <LikeModal {...props} />
      </StrictMode>,
    );
    expect(address()).toBe("/");
    await advance(2_000);
    expect(screen.getByTestId("like-modal")).toBeTruthy();
  });

  it("shows nothing without t", async () => {
    go("/members?page=2");
    render(<LikeModal {...props} />);
    await advance(3_600_000);
    expect(screen.queryByTestId("like-modal")).toBeNull();
    expect(address()).toBe("/members?page=2");
  });

  it.each(["abc", "-5", "3601", "2.5", ""])("only removes an invalid t (%s)", async (bad) => {
    go(`/members?t=${bad}&x=y`);
    render(<LikeModal {...props} />);
    expect(address()).toBe("/members?x=y");
    await advance(3_700_000);
    expect(screen.queryByTestId("like-modal")).toBeNull();
  });

  it("closes with the close button, the backdrop and Escape", async () => {
    go("/?t=0");
    render(<LikeModal {...props} />);
    await advance(0);
    fireEvent.click(screen.getByTestId("like-modal-close"));
    expect(screen.queryByTestId("like-modal")).toBeNull();
    expect(document.documentElement.classList.contains("dialog-open")).toBe(false);
    cleanup();

    for (const how of ["backdrop", "escape"] as const) {
      resetLikeModal();
      go("/?t=1");
      render(<LikeModal {...props} />);
      await advance(1_000);
      const modal = screen.getByTestId("like-modal");
      // A click inside the dialog does not close it.
      fireEvent.click(modal.querySelector(".modal-body")!);
      expect(screen.getByTestId("like-modal")).toBeTruthy();
      if (how === "backdrop") fireEvent.click(modal);
      else fireEvent.keyDown(modal, { key: "Escape" });
      expect(screen.queryByTestId("like-modal")).toBeNull();
      cleanup();
    }
  });
});
