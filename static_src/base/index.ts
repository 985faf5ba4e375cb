/**
 * The base entry, loaded on every page by the base layout.
 *
 * - Bootstrap's JS for the server-rendered markup: dropdowns (account, language), the navbar
 *   collapse, alerts, offcanvas, tabs and toasts (data-bs-* attributes work as usual),
 *   each component a chunk loaded when the page first needs it (base/bootstrapOnDemand.ts).
 * - The chunk-load reload guard, the top progress bar and the page-hidden beacon.
 * - The app badge, the title count and the top-bar badges follow appStore.totals.
 * - For a logged-in member only, imported when appStore.user is set (base/member.ts): the
 *   periodic refresh of the member's user, likes and chats (lib/refresh.ts, spec §9), the live
 *   connection (lib/realtime.ts, /ws/), appStore.push from the browser's existing subscription,
 *   the "enable push" alert (base/enablePush.ts) and the activation reminder alert's "send the
 *   e-mail again" button (base/activationReminder.ts). Visitors' pages never load them.
 * - Push: the worker's messages (lib/push.ts), on every page.
 * - Code that only some pages need, imported (import()) when the page has what it serves:
 *   the installed app's back button on the routes that have one (base/backButton.ts), the
 *   dismissible alerts (base/dismissAlerts.ts) and the landers' video (base/landerVideo.ts); the
 *   back button only in standalone mode, and the profile page's photo viewer
 *   (base/photoViewer.ts) when the pointer or the focus first reaches a photo.
 * - Server-rendered `.toast[data-autoshow]` are shown on load.
 * - A paid arrival's tracking parameters leave the address (base/arrivalAddress.ts).
 */
import type Toast from "bootstrap/js/dist/toast.js";

import { configureApiFromPage, sendPageHiddenBeacon } from "../lib/api";
import { installChunkReloadGuard } from "../lib/chunkReload";
import { installProgressBar } from "../lib/progress";
import { installPushMessageHandler } from "../lib/push";
import { whenStandalone } from "../lib/standalone";
import { appStore, updateAppBadge } from "../lib/store";
import { arrivalAddressClean } from "./arrivalAddress";
import { BACK_BUTTON_ROUTES } from "./backRoutes";
import { installBootstrapOnDemand, loadBootstrap } from "./bootstrapOnDemand";

// A paid arrival answered with the page itself: its tracking parameters leave the address.
arrivalAddressClean();
installChunkReloadGuard();
installBootstrapOnDemand();
installProgressBar();
installPushMessageHandler(); // NEW_PUSH_MESSAGE / NEW_PUSH_CLICK from /sw.js (spec §7)
configureApiFromPage();
// The installed app's back button (spec §2): only on its routes, and only in standalone mode
// (imported when the page is in it, or once it changes to it).
if (BACK_BUTTON_ROUTES.has(document.body?.dataset.route ?? "") && document.querySelector("[data-back-button]")) {
  whenStandalone(() => void import("./backButton").then(({ installBackButton }) => installBackButton()));
}

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

// Dismissible alerts (spec §4): the dismissal is stored on the server.
if (document.querySelector("[data-dismiss-alert]")) {
  void import("./dismissAlerts").then(({ installDismissAlerts }) => installDismissAlerts());
}
// Show-password buttons of the login, reset and settings forms (base/passwordToggle.ts).
if (document.querySelector("button[data-password-toggle]")) {
  void import("./passwordToggle").then(({ installPasswordToggles }) => installPasswordToggles());
}
// The landers' video plays unless the visitor prefers reduced motion (base/landerVideo.ts).
if (document.querySelector("video[data-lander-video]")) {
  void import("./landerVideo").then(({ installLanderVideos }) => installLanderVideos());
}
// The profile page's photos open in a dialog, with the arrow keys (base/photoViewer.ts),
// imported when the pointer or the focus first reaches a photo, at the latest on its click:
// that click waits for the viewer and then opens it (the photo itself if it cannot load).
if (document.querySelector("dialog[data-photo-viewer]")) {
  let viewer: Promise<void> | null = null;
  const PHOTO = "a[data-photo-viewer-item]";
  const load = () =>
    (viewer ??= import("./photoViewer").then(({ installPhotoViewer }) => {
      for (const type of ["pointerover", "focusin", "click"]) document.removeEventListener(type, early, true);
      installPhotoViewer();
    }));
  const early = (event: Event) => {
    const link = event.target instanceof Element ? event.target.closest<HTMLAnchorElement>(PHOTO) : null;
    if (!link) return;
    const opened = load();
    const click = event as MouseEvent;
    if (event.type !== "click" || click.button > 0 || click.metaKey || click.ctrlKey || click.shiftKey || click.altKey) {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    opened.then(
      () => link.click(),
      () => window.location.assign(link.href),
    );
  };
  for (const type of ["pointerover", "focusin", "click"]) document.addEventListener(type, early, true);
}

// App badge and "(N) " title prefix (spec §4). Only touched once there is something to
// show or the totals change, so the server-rendered title stays as it is otherwise.
// The top bar's badges and its credits link follow appStore.totals and the member's balance
// and premium state (a purchase on the payment page, the periodic user refresh, a live
// event): the server renders them, and their code (lib/badges.ts) is imported on the first
// change, which it then renders from the store as it is.
{
  const initial = appStore.get().totals;
  if (initial.unreadMessages + initial.newLikes > 0) updateAppBadge(initial);
  let badges: Promise<typeof import("../lib/badges")> | null = null;
  appStore.subscribe((state, previous) => {
    const totals = state.totals !== previous.totals;
    const user = state.user !== previous.user;
    if (totals) updateAppBadge(state.totals);
    if (!totals && !user) return;
    badges ??= import("../lib/badges");
    void badges.then(({ renderBadges, renderCredits }) => {
      const now = appStore.get();
      if (totals) renderBadges(now.totals);
      if (user) renderCredits(now.user);
    });
  });
}

// A logged-in member's page code (base/member.ts): the periodic refresh, the live connection,
// the push state and the "enable push" alert. Loaded once a member is logged in: on load, or
// when the signup island logs a visitor in (then the refresh starts, as it did in the page).
if (appStore.get().user) {
  void import("./member").then(({ startMember }) => startMember());
} else {
  const stop = appStore.subscribe((state) => {
    if (!state.user) return;
    stop();
    void import("./member").then(({ startRefresh }) => startRefresh());
  });
}
