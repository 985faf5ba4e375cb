/**
 * What only a logged-in member's page runs, imported by the base entry (base/index.ts) when
 * appStore.user is set, on load or when the signup island logs a visitor in. Visitors' pages
 * never load it (docs/frontend.md "What the base entry loads later"). Nothing here is needed
 * for the first render: the refresh's first round is 5 s after start, the push state and the
 * "enable push" alert are asynchronous anyway, and the islands that listen to the live
 * connection (the chat) import lib/realtime.ts themselves.
 *
 * - The periodic refresh of the member's user, likes and chats (lib/refresh.ts, spec §9).
 * - The live connection (lib/realtime.ts, /ws/): badges and chat events (docs/chat.md).
 * - appStore.push from the browser's existing subscription (lib/pushSubscription.ts), and the "enable
 *   push" alert (base/enablePush.ts), imported only where there is something to find or show:
 *   a subscription exists only with the permission granted, and the alert only where the
 *   server rendered it. Otherwise appStore.push stays as the page began: not subscribed.
 * - The activation reminder alert's "send the e-mail again" button (base/activationReminder.ts),
 *   which only members get (the reminder right after signing up is islands/ActivationReminder),
 *   imported where the page has it.
 * - The browser's time zone, kept on the account (base/timeZone.ts).
 * - On the direct-debit code page, the code's SMS reported undelivered (base/smsWatch.ts).
 */
import { startRefresh } from "../lib/refresh";
import { keepTimeZone } from "./timeZone";

export { startRefresh };
// What islands use once a member is logged in, through this module: the likes count after a
// match (the match modal).
export { reloadLikes } from "../lib/refresh";

/** A member was logged in when the page loaded. */
export function startMember(): void {
  // The browser's time zone for the server's dates, mails and pushes (base/timeZone.ts).
  keepTimeZone();
  // After 5 s, then every 60 s (5 min with push), paused while the page is hidden. Whether
  // this browser is subscribed to push already is looked up without asking or registering.
  startRefresh();
  const granted = "Notification" in window && Notification.permission === "granted";
  if (granted || document.querySelector("[data-enable-push-alert]")) {
    void import("./enablePush").then(({ installEnablePushAlert, syncPushState }) => {
      void syncPushState();
      void installEnablePushAlert();
    });
  }
  // One WebSocket per page: new messages, typing, read state, likes, matches and badge counts.
  // Imported as the chat imports it (lib/realtimeLater.ts): one module of its own, which the
  // chat's page then does not fetch twice nor as a second, re-exporting file.
  void import("../lib/realtime").then(({ startRealtime }) => {
    const realtime = startRealtime();
    // The direct-debit code page: a code's SMS reported undelivered offers a new code at once.
    if (document.querySelector("[data-sms-watch]")) {
      void import("./smsWatch").then(({ installSmsWatch }) => installSmsWatch(realtime));
    }
  });
  if (document.querySelector("[data-resend-confirmation]")) {
    void import("./activationReminder").then(({ installResendConfirmation }) => installResendConfirmation());
  }
}
