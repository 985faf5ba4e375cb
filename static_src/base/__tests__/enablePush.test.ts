import { afterEach, describe, expect, it, vi } from "vitest";

import type { PushResult } from "../../lib/pushSubscription";
import type { PushPermission } from "../../lib/store";
import { installEnablePushAlert, shouldOfferPush, type EnablePushDeps } from "../enablePush";

afterEach(() => {
  document.body.innerHTML = "";
});

const KEY = "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U";

function alertMarkup(key = KEY) {
  document.body.innerHTML = `
    <div class="alert" data-enable-push-alert data-push-key="${key}" data-testid="alert" hidden>
      <button type="button" data-enable-push>Turn on notifications</button>
      <p aria-live="polite" data-enable-push-status data-denied-text="Blocked." data-failed-text="Try later."></p>
      <button type="button" class="btn-close" data-dismiss-alert="enable_push"></button>
    </div>`;
  return {
    alert: document.querySelector<HTMLElement>("[data-enable-push-alert]")!,
    button: document.querySelector<HTMLButtonElement>("[data-enable-push]")!,
    status: document.querySelector<HTMLElement>("[data-enable-push-status]")!,
  };
}

function deps({
  supported = true,
  permission = "unknown" as PushPermission,
  subscribed = false,
  result = "subscribed" as PushResult | Promise<PushResult>,
} = {}): EnablePushDeps & { subscribe: ReturnType<typeof vi.fn> } {
  return {
    supported: () => supported,
    permission: () => permission,
    hasSubscription: async () => subscribed,
    subscribe: vi.fn(async () => result),
  };
}

describe("shouldOfferPush", () => {
  it("offers push when supported, not refused and not subscribed", async () => {
    expect(await shouldOfferPush(deps())).toBe(true);
    expect(await shouldOfferPush(deps({ permission: "granted" }))).toBe(true); // allowed, subscription lost
    expect(await shouldOfferPush(deps({ supported: false }))).toBe(false);
    expect(await shouldOfferPush(deps({ permission: "denied" }))).toBe(false);
    expect(await shouldOfferPush(deps({ permission: "granted", subscribed: true }))).toBe(false);
  });
});

describe("installEnablePushAlert", () => {
  it("shows the hidden alert only when push can be offered", async () => {
    let { alert } = alertMarkup();
    expect(await installEnablePushAlert(document, deps())).toBe(true);
    expect(alert.hidden).toBe(false);

    for (const options of [{ supported: false }, { permission: "denied" as const }, { subscribed: true }]) {
      ({ alert } = alertMarkup());
      expect(await installEnablePushAlert(document, deps(options))).toBe(false);
      expect(alert.hidden).toBe(true);
    }
    ({ alert } = alertMarkup(""));
    expect(await installEnablePushAlert(document, deps())).toBe(false);
    expect(alert.hidden).toBe(true);
  });

  it("subscribes with the key of the alert and hides it on success", async () => {
    const { alert, button } = alertMarkup();
    const d = deps();
    await installEnablePushAlert(document, d);
    button.click();
    expect(d.subscribe).toHaveBeenCalledWith(KEY);
    await vi.waitFor(() => expect(alert.hidden).toBe(true));
  });

  it("says so when the browser refuses, and keeps the button off", async () => {
    const { alert, button, status } = alertMarkup();
    await installEnablePushAlert(document, deps({ result: "denied" }));
    button.click();
    await vi.waitFor(() => expect(status.textContent).toBe("Blocked."));
    expect(alert.hidden).toBe(false);
    expect(button.disabled).toBe(true);
  });

  it("says so when subscribing fails, and lets the member try again", async () => {
    const { alert, button, status } = alertMarkup();
    const d = deps({ result: "failed" });
    await installEnablePushAlert(document, d);
    button.click();
    await vi.waitFor(() => expect(status.textContent).toBe("Try later."));
    expect(alert.hidden).toBe(false);
    expect(button.disabled).toBe(false);
    d.subscribe.mockRejectedValueOnce(new Error("boom"));
    button.click();
    await vi.waitFor(() => expect(d.subscribe).toHaveBeenCalledTimes(2));
    await vi.waitFor(() => expect(button.disabled).toBe(false));
    expect(status.textContent).toBe("Try later.");
    d.subscribe.mockResolvedValueOnce("subscribed");
    button.click();
    await vi.waitFor(() => expect(alert.hidden).toBe(true));
  });

  it("ignores clicks while a subscription is under way", async () => {
    const { button } = alertMarkup();
    let finish: (result: PushResult) => void = () => {};
    const d = deps({ result: new Promise<PushResult>((resolve) => (finish = resolve)) });
    d.subscribe.mockImplementation(() => new Promise<PushResult>((resolve) => (finish = resolve)));
    await installEnablePushAlert(document, d);
    button.click();
    button.click();
    expect(d.subscribe).toHaveBeenCalledTimes(1);
    expect(button.disabled).toBe(true);
    finish("subscribed");
  });
});
