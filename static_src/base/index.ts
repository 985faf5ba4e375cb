/**
 * The base entry, loaded on every page by the base layout.
 *
 * - Bootstrap's JS for the server-rendered markup: dropdowns (account, language), the navbar
 *   collapse, modals, alerts, offcanvas, tabs and toasts (data-bs-* attributes work as usual),
 *   each component a chunk loaded when the page first needs it (base/bootstrapOnDemand.ts).
 * - The chunk-load reload guard, the top progress bar and the page-hidden beacon.
 * - The app badge, the title count and the top-bar badges follow appStore.totals.
 * - The periodic refresh of the member's user, likes and chats (lib/refresh.ts, spec §9).
 * - The live connection (lib/realtime.ts, /ws/) for logged-in members: badges and chat events.
 * - Push: the worker's messages (lib/push.ts), appStore.push from the browser's existing
 *   subscription, and the "enable push" alert (base/enablePush.ts).
 * - The installed app's back button in the top bar (base/backButton.ts).
 * - Whether the member is at the screen (lib/activity.ts): an idle tab reads no messages.
 * - Server-rendered `.modal[data-autoshow]` and `.toast[data-autoshow]` are shown on load; the
 *   activation reminder's "send the e-mail again" buttons are wired up.
 */
import type Toast from "bootstrap/js/dist/toast.js";

import { installActivityTracking } from "../lib/activity";
import { configureApiFromPage, sendPageHiddenBeacon } from "../lib/api";
import { renderBadges, renderCredits } from "../lib/badges";
import { installChunkReloadGuard } from "../lib/chunkReload";
import { installProgressBar } from "../lib/progress";
import { installPushMessageHandler, syncPushState } from "../lib/push";
import { startRealtime } from "../lib/realtime";
import { startRefresh } from "../lib/refresh";
import { appStore, updateAppBadge } from "../lib/store";
import { autoshowModals, installResendConfirmation } from "./activationReminder";
import { installBackButton } from "./backButton";
import { installBootstrapOnDemand, loadBootstrap } from "./bootstrapOnDemand";
import { installDismissAlerts } from "./dismissAlerts";
import { installEnablePushAlert } from "./enablePush";
import { installLanderVideos } from "./landerVideo";

installChunkReloadGuard();
installBootstrapOnDemand();
installProgressBar();
installActivityTracking(); // whether the member is at the screen (chat read state)
installPushMessageHandler(); // NEW_PUSH_MESSAGE / NEW_PUSH_CLICK from /sw.js (spec §7)
configureApiFromPage();
installBackButton(); // standalone mode only (spec §2)

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") sendPageHiddenBeacon();
});

// Server-rendered toasts (e.g. "credits added" after a payment) marked data-autoshow.
{
  const toasts = document.querySelectorAll(".toast[data-autoshow]");
  if (toasts.length) {
    void loadBootstrap<{ default: typeof Toast }>("toast").then(({ default: ToastClass }) => {
      for (const el of toasts) ToastClass.getOrCreateInstance(el).show();
    });
  }
}

// Server-rendered modals marked data-autoshow (e.g. the activation reminder after signup).
void autoshowModals();
installResendConfirmation();
// Dismissible alerts (spec §4): the dismissal is stored on the server.
installDismissAlerts();
void installEnablePushAlert();
// The landers' video plays unless the visitor prefers reduced motion (base/landerVideo.ts).
installLanderVideos();

// App badge and "(N) " title prefix (spec §4). Only touched once there is something to
// show or the totals change, so the server-rendered title stays as it is otherwise.
{
  const initial = appStore.get().totals;
  if (initial.unreadMessages + initial.newLikes > 0) updateAppBadge(initial);
  appStore.subscribe((state, previous) => {
    if (state.totals !== previous.totals) {
      updateAppBadge(state.totals);
      renderBadges(state.totals);
    }
  });
}

// The top bar's credits link and badge follow the member's balance and premium state (a
// purchase on the payment page, the periodic user refresh).
appStore.subscribe((state, previous) => {
  if (state.user !== previous.user) renderCredits(state.user);
});

// Refresh of user and likes for logged-in members: after 5 s, then every 60 s (5 min with
// push), paused while the page is hidden (spec §9). Errors are silent. Whether this
// browser is subscribed to push already is looked up without asking or registering.
startRefresh();
if (appStore.get().user) void syncPushState();

// One WebSocket per page for a logged-in member: new messages, typing, read state, likes,
// matches and badge counts (docs/chat.md). The chat island listens to the same connection.
if (appStore.get().user) startRealtime();
