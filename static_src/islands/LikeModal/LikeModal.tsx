/**
 * Like modal (spec §2 default layout, §3 query parameter t, §4 "Like modal: appears after
 * the number of seconds in query t, which is then removed from the address", §6 logged-in
 * users only: the layout renders this island for members only).
 *
 * When the address has ?t=<seconds> (an integer 0..3600), t is removed from it at once with
 * history.replaceState (other parameters and the hash stay), and after t seconds a modal
 * invites the member to like profiles: a button to the swipe game, one to the members
 * search. It closes with its close button, a backdrop click or Escape. An invalid t is only
 * removed.
 */
import { useEffect, useState } from "react";

import { Dialog } from "../../lib/LazyDialog";

export interface LikeModalStrings {
  title: string;
  body: string;
  swipe: string;
  members: string;
  close: string;
}

export interface LikeModalProps {
  strings: LikeModalStrings;
  swipeUrl: string;
  membersUrl: string;
}

export const MAX_DELAY_SECONDS = 3600;
export const DELAY_PARAM = "t";

/** Seconds of a t value: an integer 0..3600, otherwise null. */
export function parseDelay(value: string | null): number | null {
  if (value === null || !/^\d{1,4}$/.test(value.trim())) return null;
  const seconds = Number(value.trim());
  return seconds <= MAX_DELAY_SECONDS ? seconds : null;
}

/**
 * Removes t from the page address (replaceState, nothing reloads) and returns its delay in
 * seconds, or null when there was no valid t.
 */
export function takeDelayFromUrl(win: Window = window): number | null {
  const url = new URL(win.location.href);
  if (!url.searchParams.has(DELAY_PARAM)) return null;
  const delay = parseDelay(url.searchParams.get(DELAY_PARAM));
  url.searchParams.delete(DELAY_PARAM);
  try {
    win.history.replaceState(win.history.state, "", url.pathname + url.search + url.hash);
  } catch {
    // History unavailable: the modal still follows.
  }
  return delay;
}

// t is read (and removed) once per page: StrictMode calls initialisers and effects twice.
let taken: { delay: number | null } | null = null;

function delayOnce(): number | null {
  taken ??= { delay: takeDelayFromUrl() };
  return taken.delay;
}

/** Tests: read the address again. */
export function resetLikeModal(): void {
  taken = null;
}

export function LikeModal({ strings, swipeUrl, membersUrl }: LikeModalProps) {
  const [open, setOpen] = useState(false);
  const [delay] = useState<number | null>(delayOnce);

  useEffect(() => {
    if (delay === null) return;
    const timer = setTimeout(() => setOpen(true), delay * 1000);
    return () => clearTimeout(timer);
  }, [delay]);

  return (
    <Dialog
      open={open}
      onClose={() => setOpen(false)}
      title={strings.title}
      closeLabel={strings.close}
      closeTestId="like-modal-close"
      className="like-modal"
      testId="like-modal"
      footer={
        <>
          <a className="btn btn-outline-primary" href={membersUrl} data-testid="like-modal-members">
            {strings.members}
          </a>
          <a className="btn btn-primary" href={swipeUrl} data-testid="like-modal-swipe">
            {strings.swipe}
          </a>
        </>
      }
    >
      <p className="text-pre-line mb-0">{strings.body}</p>
    </Dialog>
  );
}
