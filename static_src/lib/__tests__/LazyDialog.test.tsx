/**
 * lib/LazyDialog.tsx: the dialog's module is imported when the dialog first opens, and the
 * open that asked for it is not lost. This file runs without the module loaded beforehand
 * (vitest gives each file its own modules).
 */
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";

import { Dialog } from "../LazyDialog";

afterEach(() => {
  cleanup();
  document.documentElement.className = "";
});

function Page() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" data-testid="trigger" onClick={() => setOpen(true)}>
        Open
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} title="Settings" closeLabel="Close" testId="dialog">
        <button type="button" data-testid="inside">
          Inside
        </button>
      </Dialog>
    </>
  );
}

describe("LazyDialog", () => {
  it("renders nothing while closed, imports the dialog on the first open and shows it, then at once", async () => {
    render(<Page />);
    expect(screen.queryByTestId("dialog")).toBeNull();
    const trigger = screen.getByTestId("trigger");
    trigger.focus();
    fireEvent.click(trigger);
    expect(screen.queryByTestId("dialog")).toBeNull(); // being imported
    const dialog = await screen.findByTestId("dialog");
    expect(screen.getByRole("dialog", { name: "Settings" })).toBe(dialog);
    expect(document.activeElement).toBe(screen.getByTestId("inside").closest("dialog")?.querySelector("button"));

    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.queryByTestId("dialog")).toBeNull();
    expect(document.activeElement).toBe(trigger); // focus back to the opener

    // Loaded now: the next open shows the dialog at once.
    fireEvent.click(trigger);
    expect(screen.getByTestId("dialog")).toBeTruthy();
  });
});
