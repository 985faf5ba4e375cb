import { afterEach, describe, expect, it, vi } from "vitest";

import { configureApi, resetApiConfig } from "../../lib/api";
import { installDismissAlerts } from "../dismissAlerts";

afterEach(() => {
  document.body.innerHTML = "";
  resetApiConfig();
});

describe("installDismissAlerts", () => {
  it("posts the alert's name when its close button is clicked", async () => {
    document.head.innerHTML = '<meta name="csrf-token" content="tok">';
    const fetchMock = vi.fn().mockResolvedValue(
      new Response(JSON.stringify({ alert: "profile_photo" }), { status: 200, headers: { "Content-Type": "application/json" } }),
    );
    configureApi({ fetch: fetchMock });
    document.body.innerHTML = `<div class="alert"><button type="button" data-dismiss-alert="profile_photo"><span>x</span></button>
      <button type="button" id="other">other</button></div>`;
    installDismissAlerts(document);
    document.getElementById("other")!.click();
    expect(fetchMock).not.toHaveBeenCalled();
    document.querySelector<HTMLElement>("[data-dismiss-alert] span")!.click();
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe("/api/dismiss.php");
    expect(init.method).toBe("POST");
    expect(JSON.parse(init.body)).toEqual({ alert: "profile_photo" });
    expect(new Headers(init.headers).get("X-CSRFToken")).toBe("tok");
  });
});
