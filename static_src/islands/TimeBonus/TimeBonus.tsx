/**
 * The time bonus (spec §2 default layout, §4 "Time-bonus modal" and "Welcome time bonus",
 * §6, §9), for a logged-in, non-paying member in the first 4 hours after signup. The
 * server renders this island only when appStore.timeBonus (from #app-state) is present.
 *
 * - A banner under the top bar: the discount and the countdown (HH:MM:SS, once per
 *   second), linking to the credits page.
 * - The time-bonus modal: opens `modalDelaySeconds` (40) after entering the members area
 *   (members, members-id, chats, likes, likes-m-id, premium: `membersArea`), only when the
 *   member has 0 credits, with the countdown and a link to the credits page. Moving
 *   between pages of the members area does not restart the 40 s (sessionStorage); leaving
 *   it does. Closing it stores the dismissal (POST /api/dismiss.php) and it does not open
 *   again. appStore.timeBonus.isVisible tells other islands that it is open.
 *
 * The modal's dialog is TimeBonusModal.tsx, imported when it is to open: most pages never
 * open it and do not load it.
 *
 * Both disappear when the time bonus is cleared: at zero, on logout, when the member
 * becomes a paid user, after 4 hours (./countdown.ts).
 */
import { Fragment, useEffect, useState, type ReactNode } from "react";

import { post } from "../../lib/api";
import { lazyModule, useLazyModule } from "../../lib/lazyModule";
import { appStore, useStore, type AppState } from "../../lib/store";
import { formatCountdown, setTimeBonus, useCountdown } from "./countdown";

export interface TimeBonusStrings {
  bannerText: string;
  bannerTime: string;
  bannerLink: string;
  modalTitle: string;
  modalBody: string;
  modalLink: string;
  timeLeft: string;
  close: string;
}

export interface TimeBonusProps {
  strings: TimeBonusStrings;
  creditsUrl: string;
  dismissUrl: string;
  /** Name of the dismissal stored on the server ("time_bonus"). */
  dismissal: string;
  /** The member closed the modal before (User.dismissals). */
  dismissed: boolean;
  /** This page belongs to the members area. */
  membersArea: boolean;
  modalDelaySeconds?: number;
}

export const MODAL_DELAY_SECONDS = 40;
export const DEFAULT_PERCENTAGE = 25;
/** sessionStorage: when the member entered the members area (epoch ms). */
export const MEMBERS_AREA_KEY = "timeBonusMembersAreaSince";

/** Fills "{name}" placeholders with text or nodes. */
export function fill(template: string, values: Record<string, ReactNode>): ReactNode[] {
  return template.split(/(\{\w+\})/).map((part, index) => {
    const key = part.startsWith("{") && part.endsWith("}") ? part.slice(1, -1) : null;
    return <Fragment key={index}>{key !== null && key in values ? values[key] : part}</Fragment>;
  });
}

function fillText(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (match, key: string) => (key in values ? String(values[key]) : match));
}

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/**
 * Milliseconds until the modal may open on this page: the full delay when the member has
 * just entered the members area, less when already inside it; null outside the area (and
 * the entry time is forgotten: leaving clears it).
 */
export function modalDelayMs(membersArea: boolean, delaySeconds: number, now: number = Date.now()): number | null {
  const store = storage();
  if (!membersArea) {
    store?.removeItem(MEMBERS_AREA_KEY);
    return null;
  }
  let since = Number(store?.getItem(MEMBERS_AREA_KEY));
  if (!Number.isFinite(since) || since <= 0 || since > now) {
    since = now;
    try {
      store?.setItem(MEMBERS_AREA_KEY, String(now));
    } catch {
      // Storage full or refused: the full delay on every page.
    }
  }
  return Math.max(0, since + delaySeconds * 1000 - now);
}

/** The modal's module, imported when it is to open (40 s into the members area, for members
 * with 0 credits only). */
const timeBonusModal = lazyModule(() => import("./TimeBonusModal"));
export const loadTimeBonusModal = timeBonusModal.load;

// Closed on this page: a second mount (or StrictMode) does not open it again.
let closedOnThisPage = false;

/** Tests: a new page. */
export function resetTimeBonusModal(): void {
  closedOnThisPage = false;
}

const selectTimeBonus = (state: AppState) => state.timeBonus;

function hasNoCredits(state: AppState): boolean {
  return state.user?.credits === 0;
}

export function TimeBonus({
  strings,
  creditsUrl,
  dismissUrl,
  dismissal,
  dismissed,
  membersArea,
  modalDelaySeconds = MODAL_DELAY_SECONDS,
}: TimeBonusProps) {
  const bonus = useStore(appStore, selectTimeBonus);
  const seconds = useCountdown();
  const [closed, setClosed] = useState(() => dismissed || closedOnThisPage);
  const present = bonus !== null;
  const open = present && bonus.isVisible && !closed;
  const modal = useLazyModule(timeBonusModal, open);

  useEffect(() => {
    if (!present || closed) return;
    const delay = modalDelayMs(membersArea, modalDelaySeconds);
    if (delay === null) return;
    const timer = setTimeout(() => {
      const state = appStore.get();
      if (state.timeBonus && !closedOnThisPage && hasNoCredits(state)) {
        setTimeBonus({ ...state.timeBonus, isVisible: true });
      }
    }, delay);
    return () => clearTimeout(timer);
  }, [present, closed, membersArea, modalDelaySeconds]);

  if (!bonus || seconds <= 0) return null;

  const percentage = bonus.percentage ?? DEFAULT_PERCENTAGE;
  const remaining = formatCountdown(seconds);
  // The timer's label holds the time too: a label of its own ("Time left") would replace
  // it in the link's name ("Only Time left left"). The link is named by its whole text,
  // the remaining time included, as it reads on screen.
  const time = (
    <span
      className="time-bonus-countdown"
      role="timer"
      aria-label={`${strings.timeLeft}: ${remaining}`}
      data-testid="time-bonus-countdown"
    >
      {remaining}
    </span>
  );
  const bannerName = [
    fillText(strings.bannerText, { percentage }),
    fillText(strings.bannerTime, { time: remaining }),
    strings.bannerLink,
  ].join(" ");

  const close = () => {
    closedOnThisPage = true;
    setClosed(true);
    const current = appStore.get().timeBonus;
    if (current?.isVisible) setTimeBonus({ ...current, isVisible: false });
    // Closed already; a failure only means the modal may come back on a later page.
    post(dismissUrl, { alert: dismissal }, { retries: 0 }).catch(() => undefined);
  };

  return (
    <>
      <div className="time-bonus-banner" data-testid="time-bonus-banner">
        <a
          className="container time-bonus-banner-link"
          href={creditsUrl}
          aria-label={bannerName}
          data-testid="time-bonus-banner-link"
        >
          {/* Spaces between the parts: the visible text reads as the link's name (WCAG 2.5.3). */}
          <span className="time-bonus-banner-text">{fillText(strings.bannerText, { percentage })}</span>{" "}
          <span className="time-bonus-banner-time">{fill(strings.bannerTime, { time })}</span>{" "}
          <span className="time-bonus-banner-cta">{strings.bannerLink}</span>
        </a>
      </div>
      {modal && (
        <modal.TimeBonusModal
          open={open}
          onClose={close}
          title={fillText(strings.modalTitle, { percentage })}
          body={fillText(strings.modalBody, { percentage })}
          link={fillText(strings.modalLink, { percentage })}
          closeLabel={strings.close}
          creditsUrl={creditsUrl}
          remaining={remaining}
        />
      )}
    </>
  );
}
