/**
 * Swipe game (spec §2 swipe-game and landers-tinderswipe, §9 "Swipe game: 4 likes per
 * day, with a wait shown").
 *
 * A stack of profile cards: drag the top card right (like) or left (pass) beyond
 * SWIPE_THRESHOLD px, press the buttons, or the arrow keys (ArrowRight like, ArrowLeft
 * pass). Members: POST /api/swipe.php {profile, action}; the likes left are shown and, at
 * the day's limit, the wait until new likes (counting down each minute) with the like
 * disabled. A match shows an inline notice and dispatches window CustomEvent("match",
 * {detail: {profile}}). When the deck runs low, GET /api/swipe.php fetches more.
 * Visitors (lander): a fixed deck, no API calls; the swipe after `freeSwipes` opens the
 * signup. No style attributes in markup (CSP): the drag moves the card through
 * element.style from script.
 */
import { useCallback, useEffect, useId, useRef, useState, type PointerEvent as ReactPointerEvent } from "react";

import { ApiError, get, post } from "../../lib/api";
import { CardFacts, CardPhoto, CardTitle } from "../../lib/profileCard";
import type { DeckResponse, ProfileCard, SwipeAction, SwipeGameProps, SwipeResponse, SwipeStrings } from "./types";

/** Pixels the card must travel before a release counts as a swipe. */
export const SWIPE_THRESHOLD = 100;
/** Fetch more cards when this few are left. */
const REFILL_AT = 2;

/** Page navigation, replaceable in tests. */
export const navigation = {
  assign(url: string): void {
    window.location.assign(url);
  },
};

/** The next 00:00 UTC after `now` (when the server did not say). */
export function nextUtcMidnight(now: Date): string {
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  return next.toISOString();
}

/** "5 h 12 min" / "12 min": the time until `until`, minutes rounded up. */
export function waitText(strings: SwipeStrings, until: string, now: Date): string {
  const ms = Math.max(new Date(until).getTime() - now.getTime(), 0);
  const total = Math.max(Math.ceil(ms / 60000), 1);
  const hours = Math.floor(total / 60);
  const minutes = total % 60;
  if (hours > 0) {
    return strings.waitHours.replace("{hours}", String(hours)).replace("{minutes}", String(minutes));
  }
  return strings.waitMinutes.replace("{minutes}", String(minutes));
}

interface CardProps {
  card: ProfileCard;
  strings: SwipeStrings;
  likeDisabled: boolean;
  onSwipe: (action: SwipeAction) => void;
}

/** The top card; follows the pointer while dragged. */
function SwipeCard({ card, strings, likeDisabled, onSwipe }: CardProps) {
  const ref = useRef<HTMLDivElement>(null);
  const drag = useRef<{ pointerId: number; startX: number; dx: number } | null>(null);

  useEffect(() => {
    const el = ref.current;
    if (el) el.style.touchAction = "pan-y"; // horizontal drags are ours, vertical ones scroll
  }, []);

  function place(dx: number, animate: boolean) {
    const el = ref.current;
    if (!el) return;
    el.style.transition = animate ? "transform 0.2s ease-out" : "none";
    el.style.transform = dx ? `translateX(${dx}px) rotate(${dx / 20}deg)` : "";
    el.classList.toggle("swipe-card-like", dx > SWIPE_THRESHOLD / 2 && !likeDisabled);
    el.classList.toggle("swipe-card-pass", dx < -SWIPE_THRESHOLD / 2);
  }

  function onPointerDown(event: ReactPointerEvent<HTMLDivElement>) {
    if (event.button !== undefined && event.button > 0) return;
    drag.current = { pointerId: event.pointerId, startX: event.clientX, dx: 0 };
    ref.current?.setPointerCapture?.(event.pointerId);
  }

  function onPointerMove(event: ReactPointerEvent<HTMLDivElement>) {
    const state = drag.current;
    if (!state || state.pointerId !== event.pointerId) return;
    state.dx = event.clientX - state.startX;
    place(state.dx, false);
  }

  function onPointerUp(event: ReactPointerEvent<HTMLDivElement>) {
    const state = drag.current;
    if (!state || state.pointerId !== event.pointerId) return;
    drag.current = null;
    const dx = event.clientX - state.startX;
    if (dx > SWIPE_THRESHOLD && !likeDisabled) {
      place(0, false);
      onSwipe("like");
    } else if (dx < -SWIPE_THRESHOLD) {
      place(0, false);
      onSwipe("pass");
    } else {
      place(0, true);
    }
  }

  function onPointerCancel() {
    drag.current = null;
    place(0, true);
  }

  return (
    <div
      ref={ref}
      className="card shadow-sm swipe-card user-select-none"
      data-testid="swipe-card"
      data-profile-id={card.id}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerCancel}
    >
      <CardPhoto card={card} noPhoto={strings.noPhoto} draggable={false} />
      <div className="card-body">
        <CardTitle card={card} className="card-title h5" testPrefix="swipe-card" />
        <CardFacts card={card} testPrefix="swipe-card" />
      </div>
    </div>
  );
}

export function SwipeGame(props: SwipeGameProps) {
  const { strings, mode } = props;
  const keysId = useId();
  const visitor = mode === "visitor";
  const [deck, setDeck] = useState<ProfileCard[]>(props.deck);
  const [likesLeft, setLikesLeft] = useState<number | null>(props.likesLeft);
  const [nextLikesAt, setNextLikesAt] = useState<string | null>(props.nextLikesAt);
  const [match, setMatch] = useState<ProfileCard | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [loading, setLoading] = useState(false);
  const [exhausted, setExhausted] = useState(visitor);
  const [now, setNow] = useState(() => new Date());
  const seen = useRef(new Set<number>());
  const swipes = useRef(0);
  const busyRef = useRef(false);
  // While a swipe is sent the buttons are aria-disabled, not disabled, so they keep focus.
  const passRef = useRef<HTMLButtonElement>(null);
  const likeRef = useRef<HTMLButtonElement>(null);
  const deckRef = useRef(deck);
  deckRef.current = deck;

  const atLimit = !visitor && likesLeft !== null && likesLeft <= 0;
  const top = deck[0];

  const refill = useCallback(async () => {
    if (visitor) return;
    setLoading(true);
    try {
      const data = await get<DeckResponse>(props.apiUrl);
      const held = new Set(deckRef.current.map((card) => card.id));
      const fresh = data.deck.filter((card) => !seen.current.has(card.id) && !held.has(card.id));
      setDeck((current) => [...current, ...fresh.filter((card) => !current.some((c) => c.id === card.id))]);
      setExhausted(fresh.length === 0);
      setLikesLeft(data.likes_left);
      setNextLikesAt(data.next_likes_at);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : strings.error);
      setExhausted(true);
    } finally {
      setLoading(false);
    }
  }, [visitor, props.apiUrl, strings.error]);

  // An empty first deck, or a deck run low: ask for more.
  useEffect(() => {
    if (!visitor && !exhausted && !loading && deck.length <= REFILL_AT) void refill();
  }, [deck.length, exhausted, loading, visitor, refill]);

  // The wait counts down each minute; at the end the day's likes come back.
  useEffect(() => {
    if (!nextLikesAt) return;
    const timer = window.setInterval(() => setNow(new Date()), 60000);
    return () => window.clearInterval(timer);
  }, [nextLikesAt]);
  useEffect(() => {
    if (nextLikesAt && now.getTime() >= new Date(nextLikesAt).getTime()) {
      setNextLikesAt(null);
      setExhausted(false);
      void refill();
    }
  }, [now, nextLikesAt, refill]);

  const drop = useCallback((id: number) => {
    seen.current.add(id);
    setDeck((current) => current.filter((card) => card.id !== id));
  }, []);

  const swipe = useCallback(
    async (action: SwipeAction) => {
      const card = deck[0];
      if (!card || busyRef.current) return;
      if (action === "like" && atLimit) return;
      setError("");
      if (visitor) {
        swipes.current += 1;
        if (swipes.current > (props.freeSwipes ?? 2)) {
          navigation.assign(props.signupUrl ?? "/signup");
          return;
        }
        drop(card.id);
        return;
      }
      busyRef.current = true;
      setBusy(true);
      try {
        const data = await post<SwipeResponse>(props.apiUrl, { profile: card.id, action }, { retries: 0 });
        drop(card.id);
        if (data.likes_left <= 0 && document.activeElement === likeRef.current) passRef.current?.focus();
        setLikesLeft(data.likes_left);
        setNextLikesAt(data.next_likes_at);
        setNow(new Date());
        if (data.match) {
          setMatch(card);
          window.dispatchEvent(new CustomEvent("match", { detail: { profile: card } }));
        }
      } catch (err) {
        if (err instanceof ApiError && err.code === "swipe_limit") {
          setLikesLeft(0);
          setNow(new Date());
          setNextLikesAt(nextUtcMidnight(new Date()));
        } else {
          if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 403) {
            drop(card.id); // already liked or no longer available: on to the next one
          }
          setError(err instanceof ApiError ? err.message : strings.error);
        }
      } finally {
        busyRef.current = false;
        setBusy(false);
      }
    },
    [deck, atLimit, visitor, props.freeSwipes, props.signupUrl, props.apiUrl, drop, strings.error],
  );

  // Arrow keys anywhere on the page, except while typing.
  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
      const target = event.target as HTMLElement | null;
      if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
      if (event.key === "ArrowRight") {
        event.preventDefault();
        void swipe("like");
      } else if (event.key === "ArrowLeft") {
        event.preventDefault();
        void swipe("pass");
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [swipe]);

  const profileUrl = (card: ProfileCard) => props.profileUrl.replace("{id}", String(card.id));

  return (
    <div className="swipe-game" data-testid="swipe-game" data-mode={mode}>
      {!visitor && likesLeft !== null && (
        <p className="fw-semibold mb-2" data-testid="swipe-likes-left" aria-live="polite">
          {strings.likesLeft.replace("{count}", String(Math.max(likesLeft, 0)))}
        </p>
      )}
      {atLimit && nextLikesAt && (
        <div className="alert alert-info" role="status" data-testid="swipe-limit">
          {strings.limitReached.replace("{wait}", waitText(strings, nextLikesAt, now))}
        </div>
      )}
      {match && (
        <div className="alert alert-success d-flex align-items-start gap-2" role="alert" data-testid="swipe-match">
          <div className="flex-grow-1">
            <p className="fw-bold mb-1" data-testid="swipe-match-title">
              {strings.matchTitle}
            </p>
            <p className="mb-1">{strings.matchBody.replace("{name}", match.name)}</p>
            <a className="alert-link" href={profileUrl(match)} data-testid="swipe-match-link">
              {strings.matchLink}
            </a>
          </div>
          <button
            type="button"
            className="btn-close"
            aria-label={strings.close}
            onClick={() => setMatch(null)}
            data-testid="swipe-match-close"
          />
        </div>
      )}
      {error && (
        <div className="alert alert-danger" role="alert" data-testid="swipe-error">
          {error}
        </div>
      )}
      {top ? (
        <>
          <SwipeCard key={top.id} card={top} strings={strings} likeDisabled={atLimit} onSwipe={(a) => void swipe(a)} />
          <p className="visually-hidden" aria-live="polite" data-testid="swipe-current">
            {top.age !== null ? `${top.name}, ${top.age}` : top.name}
          </p>
          <div className="d-flex justify-content-center gap-3 mt-3">
            <button
              type="button"
              className="btn btn-outline-secondary btn-lg px-4 swipe-button"
              onClick={() => void swipe("pass")}
              aria-disabled={busy}
              ref={passRef}
              aria-keyshortcuts="ArrowLeft"
              aria-describedby={keysId}
              data-testid="swipe-pass"
            >
              {strings.pass}
            </button>
            <button
              type="button"
              className="btn btn-primary btn-lg px-4 swipe-button"
              onClick={() => void swipe("like")}
              disabled={atLimit}
              aria-disabled={busy}
              ref={likeRef}
              aria-keyshortcuts="ArrowRight"
              aria-describedby={keysId}
              data-testid="swipe-like"
            >
              {strings.like}
            </button>
          </div>
          <p className="small text-body-secondary text-center mt-2 mb-0" aria-hidden="true">
            {strings.hint}
          </p>
          <p className="visually-hidden" id={keysId} data-testid="swipe-keys">
            {strings.keys}
          </p>
        </>
      ) : loading ? (
        <p className="text-body-secondary" data-testid="swipe-loading">
          {strings.loading}
        </p>
      ) : (
        <div className="text-center py-4" data-testid="swipe-empty">
          <p className="text-body-secondary">{strings.empty}</p>
          <a className="btn btn-outline-primary" href={visitor ? (props.signupUrl ?? "/signup") : props.membersUrl}>
            {visitor ? strings.signup : strings.emptyLink}
          </a>
        </div>
      )}
    </div>
  );
}
