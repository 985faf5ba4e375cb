/**
 * Match modal (spec §2 "match modal with text 'New like!' that closes on click (pressing
 * the photo or the button passes the profile id to the caller)", §7 GET /api/auto-like.php,
 * §9 "Likes reload 500 ms after auto-like").
 *
 * Rendered by the default layout for logged-in members only. Once per page load it asks
 * GET /api/auto-like.php ({"profile": card | null}: a real unseen received like, which the
 * server marks seen). With a profile it shows a Bootstrap modal: title, photo (or the
 * silhouette the cards show without one: main_image.match_filename, the photo itself), name, age, city and a "View profile" button. A click anywhere closes
 * it; the photo and the button also pass the profile id to `onSelect` (default: go to the
 * profile page). 500 ms after the answer the likes are reloaded (GET /api/likes.php ->
 * appStore.totals.newLikes), so the badges lose the like just shown. Errors are silent.
 *
 * The modal itself (MatchDialog.tsx, with lib/Dialog.tsx) is a module of its own, imported
 * when there is a profile to show: most pages never show one and do not load it.
 */
import { useEffect, useState } from "react";

import { get } from "../../lib/api";
import { lazyModule, useLazyModule } from "../../lib/lazyModule";
import { appStore, type MainImage } from "../../lib/store";

export interface MatchModalStrings {
  title: string;
  viewProfile: string;
  close: string;
}

export interface LikeCard {
  id: number;
  name: string;
  age: number | null;
  city: string;
  region?: string;
  country?: string;
  main_image: MainImage | null;
  is_fictional?: boolean;
  is_cam?: boolean;
}

export interface MatchModalProps {
  strings: MatchModalStrings;
  autoLikeUrl: string;
  likesUrl: string;
  /** The member's profile page, "{id}" is replaced: "/members/{id}". */
  profileUrl: string;
  /** Called with the profile id when the photo or the button is pressed (default: navigate). */
  onSelect?: (id: number) => void;
  /** Page navigation (injectable for tests). */
  navigate?: (url: string) => void;
}

export const LIKES_RELOAD_DELAY_MS = 500;

/** The one auto-like call of the page (StrictMode runs effects twice in development). */
let pending: Promise<unknown> | null = null;

/** The auto-like call is made once per page load; tests reset that. */
export function resetMatchModal(): void {
  pending = null;
}

function autoLike(autoLikeUrl: string, likesUrl: string): Promise<unknown> {
  pending ??= get<unknown>(autoLikeUrl, { retries: 0 }).then(
    (data) => {
      // lib/refresh.ts comes with the member's page code (base/member.ts), loaded by now.
      setTimeout(() => {
        import("../../base/member")
          .then(({ reloadLikes }) => reloadLikes(appStore, likesUrl))
          .catch(() => {});
      }, LIKES_RELOAD_DELAY_MS);
      return typeof data === "object" && data !== null ? (data as { profile?: unknown }).profile : null;
    },
    () => null, // silent: no modal
  );
  return pending;
}

function isCard(value: unknown): value is LikeCard {
  if (typeof value !== "object" || value === null) return false;
  const { id, name } = value as { id?: unknown; name?: unknown };
  return (typeof id === "number" || typeof id === "string") && typeof name === "string";
}

/** The modal's dialog, imported when a profile is to show. */
const matchDialog = lazyModule(() => import("./MatchDialog"));
export const loadMatchDialog = matchDialog.load;

function defaultNavigate(url: string): void {
  window.location.assign(url);
}

export function MatchModal({ strings, autoLikeUrl, likesUrl, profileUrl, onSelect, navigate }: MatchModalProps) {
  // The profile stays while the modal closes (its animation shows it).
  const [profile, setProfile] = useState<LikeCard | null>(null);
  const [open, setOpen] = useState(false);

  const show = (card: LikeCard) => {
    setProfile(card);
    setOpen(true);
  };

  useEffect(() => {
    if (!appStore.get().user) return;
    let alive = true;
    autoLike(autoLikeUrl, likesUrl).then((card) => {
      if (alive && isCard(card)) show(card);
    });
    return () => {
      alive = false;
    };
  }, [autoLikeUrl, likesUrl]);

  // A match made on this page (the swipe game sends a window "match" event) opens
  // the modal too (issue 5: "a match opens the match modal").
  useEffect(() => {
    const onMatch = (event: Event) => {
      const card = (event as CustomEvent<{ profile?: unknown }>).detail?.profile;
      if (isCard(card)) show(card);
    };
    window.addEventListener("match", onMatch);
    return () => window.removeEventListener("match", onMatch);
  }, []);

  const view = useLazyModule(matchDialog, profile !== null);

  if (!profile || !view) return null;

  const select = () => {
    const id = profile.id;
    if (onSelect) onSelect(id);
    else (navigate ?? defaultNavigate)(profileUrl.replace("{id}", encodeURIComponent(String(id))));
  };

  return <view.MatchDialog profile={profile} open={open} onClose={() => setOpen(false)} onSelect={select} strings={strings} />;
}
