/**
 * Site-entry warning modal (spec §2 "Site-entry warning modal", §9).
 *
 * The server renders this island only where its rules allow it (setting
 * enable_site_entry_popup, logged out, country list, route, layout, and the dismissal
 * cookie). Here, on the client: nothing in standalone (installed app) mode or when
 * localStorage holds a dismissal; otherwise a modal that backdrop clicks and Escape do not
 * close. "Enter" stores the dismissal (localStorage + cookie for the server) and closes it;
 * "Leave" goes to leaveUrl.
 */
import { useRef, useState } from "react";

import { Dialog } from "../../lib/Dialog";
import { isStandalone } from "../../lib/standalone";

export interface EntryWarningStrings {
  title: string;
  body: string;
  enter: string;
  leave: string;
}

export interface EntryWarningProps {
  strings: EntryWarningStrings;
  leaveUrl: string;
  storageKey: string;
  cookieName: string;
}

export const COOKIE_MAX_AGE_SECONDS = 31_536_000; // 365 days

export function isDismissed(storageKey: string, storage?: Storage): boolean {
  try {
    const raw = (storage ?? window.localStorage).getItem(storageKey);
    if (!raw) return false;
    const data: unknown = JSON.parse(raw);
    return typeof data === "object" && data !== null && typeof (data as { dismissedAt?: unknown }).dismissedAt === "string";
  } catch {
    return false;
  }
}

function storeDismissal(storageKey: string, cookieName: string): void {
  try {
    window.localStorage.setItem(storageKey, JSON.stringify({ dismissedAt: new Date().toISOString() }));
  } catch {
    // Storage full or blocked: the cookie still tells the server.
  }
  const secure = window.location.protocol === "https:" ? "; Secure" : "";
  document.cookie = `${cookieName}=1; Max-Age=${COOKIE_MAX_AGE_SECONDS}; Path=/; SameSite=Lax${secure}`;
}

export function EntryWarning({ strings, leaveUrl, storageKey, cookieName }: EntryWarningProps) {
  const [open, setOpen] = useState(() => !isStandalone() && !isDismissed(storageKey));
  const enterRef = useRef<HTMLButtonElement>(null);

  const onEnter = () => {
    storeDismissal(storageKey, cookieName);
    setOpen(false);
  };

  const paragraphs = strings.body.split(/\r?\n\s*\r?\n/).filter((p) => p.trim() !== "");

  // Escape and the backdrop do not close it: the visitor must choose (they only nudge it).
  return (
    <Dialog
      open={open}
      onClose={() => undefined}
      closeOnEscape={false}
      closeOnBackdrop={false}
      title={strings.title}
      initialFocus={enterRef}
      className="entry-warning"
      testId="entry-warning"
      footer={
        <>
          <a className="btn btn-outline-secondary" href={leaveUrl} rel="noreferrer" data-testid="entry-warning-leave">
            {strings.leave}
          </a>
          <button
            type="button"
            className="btn btn-primary"
            data-testid="entry-warning-enter"
            ref={enterRef}
            onClick={onEnter}
          >
            {strings.enter}
          </button>
        </>
      }
    >
      {paragraphs.map((text, i) => (
        <p key={i} className={`text-pre-line${i === paragraphs.length - 1 ? " mb-0" : ""}`}>
          {text}
        </p>
      ))}
    </Dialog>
  );
}
