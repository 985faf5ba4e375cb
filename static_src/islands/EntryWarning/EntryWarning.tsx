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
import { useEffect, useId, useRef, useState, type KeyboardEvent, type MouseEvent } from "react";

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

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function EntryWarning({ strings, leaveUrl, storageKey, cookieName }: EntryWarningProps) {
  const [open, setOpen] = useState(() => !isStandalone() && !isDismissed(storageKey));
  const [shake, setShake] = useState(false);
  const titleId = useId();
  const enterRef = useRef<HTMLButtonElement>(null);
  const dialogRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    enterRef.current?.focus();
    document.body.classList.add("modal-open");
    return () => document.body.classList.remove("modal-open");
  }, [open]);

  useEffect(() => {
    if (!shake) return;
    const timer = setTimeout(() => setShake(false), 300);
    return () => clearTimeout(timer);
  }, [shake]);

  if (!open) return null;

  const onEnter = () => {
    storeDismissal(storageKey, cookieName);
    setOpen(false);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === "Escape") {
      // Not closable by Escape: the visitor must choose.
      event.preventDefault();
      event.stopPropagation();
      setShake(true);
      return;
    }
    if (event.key === "Tab" && dialogRef.current) {
      // Keep focus inside the dialog.
      const items = [...dialogRef.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
      if (items.length === 0) return;
      const first = items[0]!;
      const last = items[items.length - 1]!;
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    }
  };

  const onBackdropClick = (event: MouseEvent<HTMLDivElement>) => {
    // Clicks outside the dialog do not close it (static backdrop), they only nudge it.
    if (event.target === event.currentTarget) setShake(true);
  };

  const paragraphs = strings.body.split(/\r?\n\s*\r?\n/).filter((p) => p.trim() !== "");

  return (
    <>
      <div className="modal-backdrop fade show" />
      <div
        className={`modal fade show d-block entry-warning${shake ? " modal-static" : ""}`}
        data-testid="entry-warning"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        onKeyDown={onKeyDown}
        onClick={onBackdropClick}
      >
        <div className="modal-dialog modal-dialog-centered" ref={dialogRef}>
          <div className="modal-content">
            <div className="modal-header">
              <h2 className="modal-title h5" id={titleId}>
                {strings.title}
              </h2>
            </div>
            <div className="modal-body">
              {paragraphs.map((text, i) => (
                <p key={i} className={`text-pre-line${i === paragraphs.length - 1 ? " mb-0" : ""}`}>
                  {text}
                </p>
              ))}
            </div>
            <div className="modal-footer">
              <a
                className="btn btn-outline-secondary"
                href={leaveUrl}
                rel="noreferrer"
                data-testid="entry-warning-leave"
              >
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
            </div>
          </div>
        </div>
      </div>
    </>
  );
}
