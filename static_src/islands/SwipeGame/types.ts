/** Props of the SwipeGame island (apps.likes.views_swipe) and the answers of
 * /api/swipe.php (apps.likes.swipe). */
import type { ProfileCard } from "../Search/types";

export type { ProfileCard };

export interface SwipeStrings {
  like: string;
  pass: string;
  /** "Likes left today: {count}" */
  likesLeft: string;
  /** "... New likes in {wait}." */
  limitReached: string;
  /** "{hours} h {minutes} min" */
  waitHours: string;
  /** "{minutes} min" */
  waitMinutes: string;
  matchTitle: string;
  /** "You and {name} like each other." */
  matchBody: string;
  matchLink: string;
  close: string;
  empty: string;
  emptyLink: string;
  signup: string;
  loading: string;
  noPhoto: string;
  fictional: string;
  hint: string;
  /** The arrow keys, for screen readers (visually hidden, describes the buttons). */
  keys: string;
  error: string;
}

export interface SwipeGameProps {
  strings: SwipeStrings;
  /** "member": likes and passes go to the API; "visitor": a fixed demo deck, no API calls. */
  mode: "member" | "visitor";
  apiUrl: string;
  /** "/members/{id}" */
  profileUrl: string;
  membersUrl: string;
  deck: ProfileCard[];
  likesLeft: number | null;
  nextLikesAt: string | null;
  /** Visitor mode: swipes allowed before the signup opens. */
  freeSwipes?: number;
  /** Visitor mode: where the signup is. */
  signupUrl?: string;
}

export interface DeckResponse {
  deck: ProfileCard[];
  likes_left: number;
  next_likes_at: string | null;
}

export interface SwipeResponse {
  match: boolean;
  likes_left: number;
  next_likes_at: string | null;
}

export type SwipeAction = "like" | "pass";
