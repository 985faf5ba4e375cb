import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { StrictMode, useRef, useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { Dialog, NUDGE_MS, hasContent, type DialogProps } from "../Dialog";

afterEach(() => {
  cleanup();
  document.body.innerHTML = "";
  document.documentElement.className = "";
  delete (window as { matchMedia?: unknown }).matchMedia;
  vi.useRealTimers();
});

type Options = Partial<Omit<DialogProps, "open" | "onClose" | "title">> & { startOpen?: boolean };

/** A page with a trigger button that opens the dialog; onClose closes it. */
function Page({ startOpen = false, ...options }: Options) {
  const [open, setOpen] = useState(startOpen);
  return (
    <>
      <button type="button" data-testid="trigger" onClick={() => setOpen(true)}>
        Open
      </button>
      <input data-testid="outside" aria-label="Outside" />
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title="Settings"
        closeLabel="Close"
        closeTestId="close"
        testId="dialog"
        footer={
          <button type="button" data-testid="last">
            Save
          </button>
        }
        {...options}
      >
        <p id="dialog-text">Some text.</p>
        <input data-testid="first-field" aria-label="Name" />
        <button type="button" hidden>
          Hidden
        </button>
        <button type="button" disabled>
          Disabled
        </button>
      </Dialog>
    </>
  );
}

function openFromTrigger(options: Options = {}) {
  render(<Page {...options} />);
  const trigger = screen.getByTestId("trigger");
  trigger.focus();
  fireEvent.click(trigger);
  return { trigger, dialog: screen.getByTestId("dialog") as HTMLDialogElement };
}

const tab = (shift = false) => fireEvent.keyDown(document.activeElement!, { key: "Tab", shiftKey: shift });

describe("Dialog", () => {
  it("renders nothing while closed, a modal <dialog> labelled by its title when open", () => {
    render(<Page />);
    expect(screen.queryByTestId("dialog")).toBeNull();
    fireEvent.click(screen.getByTestId("trigger"));
    const dialog = screen.getByTestId("dialog") as HTMLDialogElement;
    expect(dialog.tagName).toBe("DIALOG");
    expect(dialog.open).toBe(true);
    expect(document.getElementById(dialog.getAttribute("aria-labelledby")!)!.textContent).toBe("Settings");
    expect(dialog.hasAttribute("aria-describedby")).toBe(false);
    expect(dialog.hasAttribute("role")).toBe(false); // the native dialog role
    expect(screen.getByRole("dialog", { name: "Settings" })).toBe(dialog);
    expect(dialog.querySelector("[style]")).toBeNull(); // CSP: no inline styles
  });

  it("is described by the given element and can be an alertdialog", () => {
    render(<Page startOpen describedBy="dialog-text" role="alertdialog" />);
    const dialog = screen.getByTestId("dialog");
    expect(dialog.getAttribute("aria-describedby")).toBe("dialog-text");
    expect(screen.getByRole("alertdialog", { name: "Settings" })).toBe(dialog);
  });

  it("the close button's name is its label, and it closes", () => {
    openFromTrigger();
    const close = screen.getByRole("button", { name: "Close" });
    expect(close).toBe(screen.getByTestId("close"));
    expect(close.getAttribute("title")).toBe("Close");
    fireEvent.click(close);
    expect(screen.queryByTestId("dialog")).toBeNull();
  });

  it("has no close button without a label", () => {
    render(<Page startOpen closeLabel={undefined} />);
    expect(screen.queryByTestId("close")).toBeNull();
  });

  it("moves focus to the first focusable element", () => {
    openFromTrigger();
    expect(document.activeElement).toBe(screen.getByTestId("close"));
  });

  it("moves focus to the given element (ref or selector)", () => {
    openFromTrigger({ initialFocus: "[data-testid=first-field]" });
    expect(document.activeElement).toBe(screen.getByTestId("first-field"));
    cleanup();

    function WithRef() {
      const ref = useRef<HTMLButtonElement>(null);
      return (
        <Dialog open onClose={() => {}} title="T" initialFocus={ref} testId="dialog">
          <button type="button">One</button>
          <button type="button" ref={ref} data-testid="two">
            Two
          </button>
        </Dialog>
      );
    }
    render(<WithRef />);
    expect(document.activeElement).toBe(screen.getByTestId("two"));
  });

  it("focuses the dialog itself when nothing inside can take focus", () => {
    render(
      <Dialog open onClose={() => {}} title="Only text" testId="dialog">
        <p>Nothing to press.</p>
      </Dialog>,
    );
    expect(document.activeElement).toBe(screen.getByTestId("dialog"));
  });

  it("keeps Tab and Shift+Tab inside, skipping hidden and disabled elements", () => {
    openFromTrigger();
    const close = screen.getByTestId("close");
    const last = screen.getByTestId("last");
    expect(document.activeElement).toBe(close);
    tab(true); // from the first back to the last
    expect(document.activeElement).toBe(last);
    tab(); // from the last on to the first
    expect(document.activeElement).toBe(close);
    // Focus that got outside somehow comes back in.
    screen.getByTestId("outside").focus();
    fireEvent.keyDown(screen.getByTestId("dialog"), { key: "Tab" });
    expect(document.activeElement).toBe(close);
  });

  it("in the middle, Tab is left to the browser", () => {
    openFromTrigger();
    screen.getByTestId("first-field").focus();
    const event = tab();
    expect(event).toBe(true); // not prevented
  });

  it("returns focus to the element that had it, on each way of closing", () => {
    for (const how of ["button", "escape", "backdrop"] as const) {
      const { trigger, dialog } = openFromTrigger();
      expect(document.activeElement).not.toBe(trigger);
      if (how === "button") fireEvent.click(screen.getByTestId("close"));
      else if (how === "escape") fireEvent.keyDown(document.activeElement!, { key: "Escape" });
      else fireEvent.click(dialog);
      expect(screen.queryByTestId("dialog")).toBeNull();
      expect(document.activeElement).toBe(trigger);
      cleanup();
    }
  });

  it("returns focus to returnFocus when given", () => {
    function WithReturn() {
      const [open, setOpen] = useState(true);
      const input = useRef<HTMLInputElement>(null);
      return (
        <>
          <input ref={input} data-testid="input" aria-label="Message" />
          <Dialog open={open} onClose={() => setOpen(false)} title="T" closeLabel="Close" returnFocus={input}>
            <p>x</p>
          </Dialog>
        </>
      );
    }
    render(<WithReturn />);
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(document.activeElement).toBe(screen.getByTestId("input"));
  });

  it("returns focus when the island unmounts it", () => {
    function Island() {
      const [open, setOpen] = useState(false);
      return (
        <>
          <button type="button" data-testid="trigger" onClick={() => setOpen(true)}>
            Open
          </button>
          {open && (
            <Dialog open onClose={() => setOpen(false)} title="T" testId="dialog">
              <button type="button" data-testid="done" onClick={() => setOpen(false)}>
                Done
              </button>
            </Dialog>
          )}
        </>
      );
    }
    render(<Island />);
    const trigger = screen.getByTestId("trigger");
    trigger.focus();
    fireEvent.click(trigger);
    expect(document.activeElement).toBe(screen.getByTestId("done"));
    fireEvent.click(screen.getByTestId("done"));
    expect(screen.queryByTestId("dialog")).toBeNull();
    expect(document.activeElement).toBe(trigger);
    expect(document.documentElement.classList.contains("dialog-open")).toBe(false);
  });

  it("Escape closes it when allowed, and is cancelled so the browser does not close it itself", () => {
    openFromTrigger();
    const event = new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true });
    act(() => {
      document.activeElement!.dispatchEvent(event);
    });
    expect(event.defaultPrevented).toBe(true);
    expect(screen.queryByTestId("dialog")).toBeNull();
  });

  it("Escape is refused where the dialog says so: it stays open and nudges", () => {
    vi.useFakeTimers();
    const { dialog } = openFromTrigger({ closeOnEscape: false });
    const event = new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true });
    act(() => {
      document.activeElement!.dispatchEvent(event);
    });
    expect(event.defaultPrevented).toBe(true);
    expect(dialog.open).toBe(true);
    expect(screen.getByTestId("dialog")).toBe(dialog);
    expect(dialog.classList.contains("app-dialog-nudge")).toBe(true);
    act(() => {
      vi.advanceTimersByTime(NUDGE_MS);
    });
    expect(dialog.classList.contains("app-dialog-nudge")).toBe(false);
    // The backdrop still closes it.
    fireEvent.click(dialog);
    expect(screen.queryByTestId("dialog")).toBeNull();
  });

  it("a cancel event (a close request without Escape) follows the same rule", () => {
    const { dialog } = openFromTrigger({ closeOnEscape: false });
    const cancel = new Event("cancel", { cancelable: true });
    act(() => {
      dialog.dispatchEvent(cancel);
    });
    expect(cancel.defaultPrevented).toBe(true);
    expect(dialog.open).toBe(true);
    cleanup();

    const again = openFromTrigger();
    act(() => {
      again.dialog.dispatchEvent(new Event("cancel", { cancelable: true }));
    });
    expect(screen.queryByTestId("dialog")).toBeNull();
  });

  it("is shown again when the browser closed it although it may not close", () => {
    const { dialog } = openFromTrigger({ closeOnEscape: false });
    act(() => dialog.close());
    expect(dialog.open).toBe(true);
    expect(dialog.contains(document.activeElement)).toBe(true);
  });

  it("a backdrop click closes it when allowed; clicks inside do not", () => {
    const { dialog } = openFromTrigger();
    fireEvent.click(dialog.querySelector(".modal-body")!);
    fireEvent.click(screen.getByTestId("first-field"));
    expect(screen.getByTestId("dialog")).toBe(dialog);
    // A press inside that ends on the backdrop (selecting text) is not a backdrop click.
    fireEvent.mouseDown(dialog.querySelector("p")!);
    fireEvent.click(dialog);
    expect(screen.getByTestId("dialog")).toBe(dialog);
    fireEvent.mouseDown(dialog);
    fireEvent.click(dialog);
    expect(screen.queryByTestId("dialog")).toBeNull();
  });

  it("a backdrop click is refused where the dialog says so", () => {
    const { dialog } = openFromTrigger({ closeOnBackdrop: false });
    fireEvent.click(dialog);
    expect(dialog.open).toBe(true);
    expect(dialog.classList.contains("app-dialog-nudge")).toBe(true);
    fireEvent.keyDown(dialog, { key: "Escape" }); // Escape still may
    expect(screen.queryByTestId("dialog")).toBeNull();
  });

  it("closeOnAnyClick: a click inside closes it too", () => {
    const { dialog } = openFromTrigger({ closeOnAnyClick: true });
    fireEvent.click(dialog.querySelector("p")!);
    expect(screen.queryByTestId("dialog")).toBeNull();
  });

  it("locks the page's scrolling while open and restores it after", () => {
    const { dialog } = openFromTrigger();
    const root = document.documentElement;
    expect(root.classList.contains("dialog-open")).toBe(true);
    fireEvent.click(dialog);
    expect(root.classList.contains("dialog-open")).toBe(false);
  });

  it("nested dialogs: the inner one takes Escape and Tab, the lock holds until the last closes", () => {
    function Nested() {
      const [outer, setOuter] = useState(true);
      const [inner, setInner] = useState(false);
      return (
        <Dialog open={outer} onClose={() => setOuter(false)} title="Outer" testId="outer" closeLabel="Close outer">
          <button type="button" data-testid="open-inner" onClick={() => setInner(true)}>
            More
          </button>
          <Dialog open={inner} onClose={() => setInner(false)} title="Inner" testId="inner" role="alertdialog">
            <button type="button" data-testid="ok" onClick={() => setInner(false)}>
              OK
            </button>
          </Dialog>
        </Dialog>
      );
    }
    render(<Nested />);
    const root = document.documentElement;
    const opener = screen.getByTestId("open-inner");
    opener.focus();
    fireEvent.click(opener);
    const ok = screen.getByTestId("ok");
    expect(document.activeElement).toBe(ok);
    tab(); // one element: stays on it
    expect(document.activeElement).toBe(ok);
    fireEvent.keyDown(ok, { key: "Escape" });
    expect(screen.queryByTestId("inner")).toBeNull();
    expect(screen.getByTestId("outer")).toBeTruthy();
    expect(document.activeElement).toBe(opener);
    expect(root.classList.contains("dialog-open")).toBe(true);
    fireEvent.keyDown(opener, { key: "Escape" });
    expect(screen.queryByTestId("outer")).toBeNull();
    expect(root.classList.contains("dialog-open")).toBe(false);
  });

  it("stays open in StrictMode (effects run twice) and still closes", () => {
    render(
      <StrictMode>
        <Page startOpen />
      </StrictMode>,
    );
    const dialog = screen.getByTestId("dialog") as HTMLDialogElement;
    expect(dialog.open).toBe(true);
    expect(document.activeElement).toBe(screen.getByTestId("close"));
    expect(document.documentElement.classList.contains("dialog-open")).toBe(true);
    fireEvent.click(screen.getByTestId("close"));
    expect(screen.queryByTestId("dialog")).toBeNull();
    expect(document.documentElement.classList.contains("dialog-open")).toBe(false);
  });

  it("keepMounted keeps the closed dialog (and its content) in the page", () => {
    render(<Page keepMounted />);
    const dialog = screen.getByTestId("dialog") as HTMLDialogElement;
    expect(dialog.open).toBe(false);
    const trigger = screen.getByTestId("trigger");
    trigger.focus();
    fireEvent.click(trigger);
    expect(dialog.open).toBe(true);
    fireEvent.change(screen.getByTestId("first-field"), { target: { value: "Ann" } });
    fireEvent.click(screen.getByTestId("close"));
    expect(dialog.open).toBe(false);
    expect(document.activeElement).toBe(trigger); // not back to the focus of the commit's start
    expect((screen.getByTestId("first-field") as HTMLInputElement).value).toBe("Ann");
  });

  it("with an animation, closes when it ends; with reduced motion at once", () => {
    const computed = vi.spyOn(window, "getComputedStyle");
    computed.mockImplementation(() => ({ animationName: "app-dialog-out" }) as CSSStyleDeclaration);
    const { dialog } = openFromTrigger();
    fireEvent.click(screen.getByTestId("close"));
    expect(dialog.classList.contains("app-dialog-closing")).toBe(true);
    expect(dialog.open).toBe(true);
    act(() => {
      dialog.dispatchEvent(new Event("animationend"));
    });
    expect(screen.queryByTestId("dialog")).toBeNull();
    cleanup();

    Object.defineProperty(window, "matchMedia", {
      configurable: true,
      writable: true,
      value: (query: string) => ({ matches: query === "(prefers-reduced-motion: reduce)", media: query }),
    });
    openFromTrigger();
    fireEvent.click(screen.getByTestId("close"));
    expect(screen.queryByTestId("dialog")).toBeNull();
  });
});

describe("Dialog without content", () => {
  it("has no body, only its title and footer", () => {
    render(<Dialog open onClose={() => {}} title="Log in first" footer={<a href="/login">Login</a>} testId="bare" />);
    const dialog = screen.getByTestId("bare");
    expect(dialog.querySelector(".modal-body")).toBeNull();
    expect(dialog.querySelector(".modal-header")!.textContent).toBe("Log in first");
    expect(dialog.querySelector(".modal-footer")!.textContent).toBe("Login");
  });

  it.each([[undefined], [null], [false], [""]])("counts %s as no content, text and elements as content", (empty) => {
    expect(hasContent(empty)).toBe(false);
    expect(hasContent("text")).toBe(true);
    expect(hasContent(0)).toBe(true);
    expect(hasContent(<p>text</p>)).toBe(true);
  });
});
