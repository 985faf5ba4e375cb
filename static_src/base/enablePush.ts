/**
 * The "enable push" alert (spec §4 dismissible alerts, "Push permission"). The server
 * renders it hidden for members who have not dismissed it, on sites with a push key
 * (apps.profiles.templatetags.profile_alerts.enable_push_alert):
 *
 *   <div data-enable-push-alert data-push-key="<VAPID public key>" hidden>
 *     <button data-enable-push>Turn on notifications</button>
 *     <p aria-live="polite" data-enable-push-status data-denied-text="..." data-failed-text="..."></p>
 *     <button class="btn-close" data-dismiss-alert="enable_push">   (base/dismissAlerts.ts)
 *   </div>
 *
 * Shown only where the browser can do push, has not refused it and holds no subscription.
 * The button subscribes (lib/pushSubscription.ts subscribeToPush, which asks for permission): on
 * success the alert goes away; when refused or failed a short message says so.
 */
import { pushPermission, pushSupported } from "../lib/pushSupport";
import { currentPushSubscription, subscribeToPush, type PushResult } from "../lib/pushSubscription";
import type { PushPermission } from "../lib/store";

// A member's page code (base/member.ts) imports this module only where push matters (the
// alert, or the permission granted); the signup's push step subscribes through it.
export { subscribeToPush, syncPushState } from "../lib/pushSubscription";

export interface EnablePushDeps {
  supported(): boolean;
  permission(): PushPermission;
  hasSubscription(): Promise<boolean>;
  subscribe(publicKey: string): Promise<PushResult>;
}

export const defaultEnablePushDeps: EnablePushDeps = {
  supported: () => pushSupported(),
  permission: () => pushPermission(),
  hasSubscription: async () => (await currentPushSubscription()) !== null,
  subscribe: (publicKey) => subscribeToPush({ publicKey }),
};

/** Whether to offer push: supported, not refused, no subscription yet. */
export async function shouldOfferPush(deps: EnablePushDeps): Promise<boolean> {
  if (!deps.supported() || deps.permission() === "denied") return false;
  return !(await deps.hasSubscription());
}

/** Resolves once the alert is shown (true) or left hidden (false). */
export async function installEnablePushAlert(
  doc: Document = document,
  deps: EnablePushDeps = defaultEnablePushDeps,
): Promise<boolean> {
  const alert = doc.querySelector<HTMLElement>("[data-enable-push-alert]");
  const button = alert?.querySelector<HTMLButtonElement>("[data-enable-push]");
  const key = alert?.dataset.pushKey ?? "";
  if (!alert || !button || !key) return false;
  if (!(await shouldOfferPush(deps))) return false;
  const status = alert.querySelector<HTMLElement>("[data-enable-push-status]");
  let busy = false;
  button.addEventListener("click", () => {
    if (busy) return;
    busy = true;
    button.disabled = true;
    if (status) status.textContent = "";
    void deps
      .subscribe(key)
      .catch((): PushResult => "failed")
      .then((result) => {
        busy = false;
        if (result === "subscribed") {
          alert.hidden = true;
          return;
        }
        if (status) {
          status.textContent = (result === "denied" ? status.dataset.deniedText : status.dataset.failedText) ?? "";
        }
        // Refused: asking again does nothing until the member allows it in the browser.
        button.disabled = result === "denied";
      });
  });
  alert.hidden = false;
  return true;
}
