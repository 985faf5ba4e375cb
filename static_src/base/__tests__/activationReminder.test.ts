import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { configureApi, resetApiConfig } from "../../lib/api";
import { installResendConfirmation } from "../activationReminder";

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

afterEach(() => {
  document.body.innerHTML = "";
  resetApiConfig();
});

describe("installResendConfirmation", () => {
  const BOX = `<div data-resend-confirmation data-sent-text="Sent again.">
    <button type="button" data-resend-button>Send the e-mail again</button>
    <span data-resend-status></span></div>`;

  beforeEach(() => {
    document.head.innerHTML = '<meta name="csrf-token" content="tok">';
  });

  it("posts once and shows the sent text", async () => {
    const fetchMock = vi.fn().mockResolvedValue(jsonResponse(200, { sent: true }));
    configureApi({ fetch: fetchMock });
    document.body.innerHTML = BOX;
    installResendConfirmation();
    installResendConfirmation(); // bound once only
    document.querySelector<HTMLButtonElement>("button")!.click();
    await vi.waitFor(() => expect(document.querySelector("[data-resend-status]")!.textContent).toBe("Sent again."));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe("/api/signup/resend.php");
    expect(init.method).toBe("POST");
    expect(new Headers(init.headers).get("X-CSRFToken")).toBe("tok");
    expect(document.querySelector<HTMLButtonElement>("button")!.disabled).toBe(true);
  });

  it("shows the server's 429 message and lets the member try again later", async () => {
    const message = "We have just sent you an e-mail. Please wait a few minutes.";
    const fetchMock = vi.fn().mockResolvedValue(jsonResponse(429, { error: { code: "rate_limited", message } }));
    configureApi({ fetch: fetchMock });
    document.body.innerHTML = BOX;
    installResendConfirmation();
    document.querySelector<HTMLButtonElement>("button")!.click();
    await vi.waitFor(() => expect(document.querySelector("[data-resend-status]")!.textContent).toBe(message));
    expect(fetchMock).toHaveBeenCalledTimes(1); // 4xx is not retried
    expect(document.querySelector<HTMLButtonElement>("button")!.disabled).toBe(false);
    expect(document.querySelector<HTMLElement>("[data-resend-status]")!.dataset.state).toBe("error");
  });
});
