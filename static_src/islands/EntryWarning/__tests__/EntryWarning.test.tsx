import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { EntryWarning, type EntryWarningProps } from "../EntryWarning";

const props: EntryWarningProps = {
  strings: {
    title: "Adults only",
    body: "This site contains adult content.\nYou must be 18 or older.\n\n<b>Second</b> paragraph.",
    enter: "I am 18+, enter",
    leave: "Leave",
  },
  leaveUrl: "https://www.example.org/",
  storageKey: "entry-warning",
  cookieName: "entry_warning_dismissed",
};

function clearCookie(name: string) {
  document.cookie = `${name}=; Max-Age=0; Path=/`;
}

function stubMatchMedia(standalone: boolean) {
  Object.defineProperty(window, "matchMedia", {
    configurable: true,
    writable: true,
    value: vi.fn((query: string) => ({
      matches: standalone && query === "(display-mode: standalone)",
      media: query,
      addEventListener() {},
      removeEventListener() {},
    })),
  });
}

beforeEach(() => {
  localStorage.clear();
  clearCookie(props.cookieName);
});

afterEach(() => {
  cleanup();
  delete (window as { matchMedia?: unknown }).matchMedia;
  delete (navigator as { standalone?: unknown }).standalone;
  document.body.innerHTML = "";
  document.body.className = "";
  vi.useRealTimers();
});

describe("EntryWarning", () => {
  it("shows an accessible modal when not dismissed, with focus on the enter button", () => {
    render(<EntryWarning {...props} />);
    const modal = screen.getByTestId("entry-warning");
    // A native modal dialog (lib/Dialog.tsx): the backdrop is its ::backdrop.
    expect(modal.tagName).toBe("DIALOG");
    expect((modal as HTMLDialogElement).open).toBe(true);
    expect(screen.getByRole("dialog", { name: "Adults only" })).toBe(modal);

    const titleId = modal.getAttribute("aria-labelledby")!;
    expect(document.getElementById(titleId)?.textContent).toBe("Adults only");

    const enter = screen.getByTestId("entry-warning-enter");
    expect(enter.className).toBe("btn btn-primary");
    expect(enter.textContent).toBe("I am 18+, enter");
    expect(document.activeElement).toBe(enter);
    expect(screen.getByTestId("entry-warning-leave").textContent).toBe("Leave");
    expect(document.documentElement.classList.contains("dialog-open")).toBe(true);
  });

  it("renders the body as text with its line breaks, never as HTML", () => {
    render(<EntryWarning {...props} />);
    const body = screen.getByTestId("entry-warning").querySelector(".modal-body")!;
    const paragraphs = body.querySelectorAll("p");
    expect(paragraphs).toHaveLength(2);
    expect(paragraphs[0]!.textContent).toBe("This site contains adult content.\nYou must be 18 or older.");
    expect(paragraphs[1]!.textContent).toBe("<b>Second</b> paragraph.");
    expect(body.querySelector("b")).toBeNull();
  });

  it("enter stores the dismissal and the cookie, then closes", () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date("2025-03-01T10:20:30.000Z"));
    render(<EntryWarning {...props} />);

    fireEvent.click(screen.getByTestId("entry-warning-enter"));

    expect(screen.queryByTestId("entry-warning")).toBeNull();
    expect(JSON.parse(localStorage.getItem("entry-warning")!)).toEqual({ dismissedAt: "2025-03-01T10:20:30.000Z" });
    expect(document.cookie.split("; ")).toContain("entry_warning_dismissed=1");
    expect(document.documentElement.classList.contains("dialog-open")).toBe(false);
  });

  it("writes the cookie with a year's Max-Age, Path=/ and SameSite=Lax", () => {
    const cookies: string[] = [];
    const spy = vi.spyOn(document, "cookie", "set").mockImplementation((value: string) => {
      cookies.push(value);
    });
    render(<EntryWarning {...props} />);
    fireEvent.click(screen.getByTestId("entry-warning-enter"));
    spy.mockRestore();
    expect(cookies).toEqual(["entry_warning_dismissed=1; Max-Age=31536000; Path=/; SameSite=Lax"]);
  });

  it("is not rendered when a dismissal is stored", () => {
    localStorage.setItem("entry-warning", JSON.stringify({ dismissedAt: "2025-01-01T00:00:00.000Z" }));
    const { container } = render(<EntryWarning {...props} />);
    expect(screen.queryByTestId("entry-warning")).toBeNull();
    expect(container.innerHTML).toBe("");
  });

  it("still shows when the stored value is not a dismissal", () => {
    localStorage.setItem("entry-warning", "garbage");
    render(<EntryWarning {...props} />);
    expect(screen.getByTestId("entry-warning")).toBeTruthy();
  });

  it("is not rendered in standalone mode (display-mode media query)", () => {
    stubMatchMedia(true);
    render(<EntryWarning {...props} />);
    expect(screen.queryByTestId("entry-warning")).toBeNull();
  });

  it("is not rendered in standalone mode (iOS navigator.standalone)", () => {
    stubMatchMedia(false);
    Object.defineProperty(navigator, "standalone", { value: true, configurable: true });
    render(<EntryWarning {...props} />);
    expect(screen.queryByTestId("entry-warning")).toBeNull();
  });

  it("shows in a normal browser tab when matchMedia says not standalone", () => {
    stubMatchMedia(false);
    render(<EntryWarning {...props} />);
    expect(screen.getByTestId("entry-warning")).toBeTruthy();
  });

  it("cannot be closed by Escape or by clicking the backdrop", () => {
    render(<EntryWarning {...props} />);
    const modal = screen.getByTestId("entry-warning");
    fireEvent.keyDown(screen.getByTestId("entry-warning-enter"), { key: "Escape" });
    fireEvent.keyDown(modal, { key: "Escape" });
    fireEvent.keyDown(document, { key: "Escape" });
    fireEvent.click(modal);
    expect(screen.getByTestId("entry-warning")).toBeTruthy();
    expect(localStorage.getItem("entry-warning")).toBeNull();
    expect(document.cookie).not.toContain("entry_warning_dismissed");
  });

  it("keeps Tab focus inside the dialog", () => {
    render(<EntryWarning {...props} />);
    const enter = screen.getByTestId("entry-warning-enter");
    const leave = screen.getByTestId("entry-warning-leave");
    expect(document.activeElement).toBe(enter);
    fireEvent.keyDown(enter, { key: "Tab" });
    expect(document.activeElement).toBe(leave);
    fireEvent.keyDown(leave, { key: "Tab", shiftKey: true });
    expect(document.activeElement).toBe(enter);
  });

  it("leave goes to leaveUrl", () => {
    render(<EntryWarning {...props} />);
    const leave = screen.getByTestId("entry-warning-leave") as HTMLAnchorElement;
    expect(leave.getAttribute("href")).toBe("https://www.example.org/");
    expect(localStorage.getItem("entry-warning")).toBeNull();
  });
});

describe("EntryWarning island entry", () => {
  it("mounts itself from the server-rendered mount point and props script", async () => {
    document.body.innerHTML =
      '<div data-island="EntryWarning" id="island-EntryWarning-1"></div>' +
      `<script type="application/json" id="island-EntryWarning-1-props">${JSON.stringify(props)}</script>`;
    await act(async () => {
      await import("../index");
    });
    const mountPoint = document.getElementById("island-EntryWarning-1")!;
    expect(mountPoint.querySelector('[data-testid="entry-warning"]')).not.toBeNull();
    expect(mountPoint.querySelector(".modal-title")!.textContent).toBe("Adults only");
  });
});
