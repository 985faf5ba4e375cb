import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { configureApi, resetApiConfig } from "../../../lib/api";
import { ActivationReminder, type ActivationReminderProps } from "../ActivationReminder";

const props: ActivationReminderProps = {
  text: "We have sent an e-mail to new@example.com.",
  strings: {
    title: "Please confirm your e-mail address",
    close: "Close",
    ok: "OK",
    resend: "Send the e-mail again",
    sent: "We have sent the e-mail again.",
  },
};

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function phone(matching: string[]) {
  vi.stubGlobal("matchMedia", (query: string) => ({ matches: matching.includes(query) }) as MediaQueryList);
}

beforeEach(() => {
  document.head.innerHTML = '<meta name="csrf-token" content="tok">';
});

afterEach(() => {
  cleanup();
  resetApiConfig();
  document.body.innerHTML = "";
});

describe("ActivationReminder", () => {
  it("opens on load with the text, its title as the name and the focus inside", () => {
    phone([]);
    render(<ActivationReminder {...props} />);
    const dialog = screen.getByTestId("activation-modal");
    expect(dialog).toHaveProperty("open", true);
    expect(screen.getByRole("heading").textContent).toBe(props.strings.title);
    expect(dialog.getAttribute("aria-labelledby")).toBe(screen.getByRole("heading").id);
    expect(dialog.textContent).toContain("new@example.com");
    expect(dialog.contains(document.activeElement)).toBe(true);
  });

  it.each([["(max-width: 575.98px)"], ["(pointer: coarse)"]])("is not shown on a smartphone (%s)", (query) => {
    phone([query]);
    render(<ActivationReminder {...props} />);
    expect(document.querySelector("dialog")).toBeNull();
  });

  it("closes with OK, with the close button and with Escape", () => {
    for (const close of [
      () => fireEvent.click(screen.getByTestId("activation-modal-ok")),
      () => fireEvent.click(screen.getByTestId("activation-modal-close")),
      () => fireEvent.keyDown(screen.getByTestId("activation-modal"), { key: "Escape" }),
    ]) {
      render(<ActivationReminder {...props} />);
      act(close);
      expect(document.querySelector("dialog")).toBeNull();
      cleanup();
    }
  });

  it("sends the e-mail again once, says so and keeps the focus on the button", async () => {
    const fetchMock = vi.fn().mockResolvedValue(jsonResponse(200, { sent: true }));
    configureApi({ fetch: fetchMock });
    render(<ActivationReminder {...props} />);
    const button = screen.getByTestId("activation-resend");
    button.focus();
    fireEvent.click(button);
    const status = screen.getByTestId("activation-resend-status");
    await vi.waitFor(() => expect(status.textContent).toBe(props.strings.sent));
    expect(status.getAttribute("role")).toBe("status");
    expect(status.dataset.state).toBe("sent");
    expect(button.getAttribute("aria-disabled")).toBe("true");
    expect(document.activeElement).toBe(button);
    fireEvent.click(button); // sent: not again
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe("/api/signup/resend.php");
    expect(init.method).toBe("POST");
    expect(new Headers(init.headers).get("X-CSRFToken")).toBe("tok");
  });

  it("shows the server's 429 message, without retrying, and lets the member try again", async () => {
    const message = "We have just sent you an e-mail. Please wait a few minutes.";
    const fetchMock = vi
      .fn()
      .mockResolvedValueOnce(jsonResponse(429, { error: { code: "rate_limited", message } }))
      .mockResolvedValueOnce(jsonResponse(200, { sent: true }));
    configureApi({ fetch: fetchMock });
    render(<ActivationReminder {...props} />);
    const button = screen.getByTestId("activation-resend");
    const status = screen.getByTestId("activation-resend-status");
    fireEvent.click(button);
    await vi.waitFor(() => expect(status.textContent).toBe(message));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(status.dataset.state).toBe("error");
    expect(button.hasAttribute("aria-disabled")).toBe(false);
    fireEvent.click(button);
    await vi.waitFor(() => expect(status.textContent).toBe(props.strings.sent));
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });
});
