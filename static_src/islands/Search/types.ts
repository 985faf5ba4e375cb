import type { LocationStrings } from "../../lib/LocationButton";
import type { CardFact, CardNote, CardText, FictionalLabel } from "../../lib/profileCard";
import type { MainImage } from "../../lib/store";

/** Props of the Search island, built by apps.profiles.views_search.members_page, and the
 * answer of GET /api/search.php (apps.profiles.search.search_payload). */

export interface SearchStrings extends LocationStrings {
  title: string;
  filters: string;
  gender: string;
  country: string;
  region: string;
  anyRegion: string;
  minAge: string;
  maxAge: string;
  any: string;
  search: string;
  like: string;
  liked: string;
  unlike: string;
  match: string;
  likeLogin: string;
  clear: string;
  loadMore: string;
  loading: string;
  noResults: string;
  noResultsHelp: string;
  cleared: string;
  similarTitle: string;
  noPhoto: string;
  fictional: string;
  error: string;
}

export interface ProfileCard extends CardText {
  id: number;
  name: string;
  age: number | null;
  city: string;
  region: string;
  country: string;
  main_image: MainImage | null;
  facts: CardFact[];
  notes: CardNote[];
  fictional: FictionalLabel | null;
  is_fictional: boolean;
  is_cam: boolean;
}

/** Filters as the server echoes them; interests come as a list. */
export type ServerFilters = Record<string, string | number | string[]>;

/** Filters as the form holds them: one string per control ("" is "any"). */
export type FilterValues = Record<string, string>;

export interface SearchResponse {
  results: ProfileCard[];
  page: number;
  /** Exact up to 1,000; past it 1,000 with `num_results_capped` ("1,000+"). */
  num_results: number;
  num_results_capped: boolean;
  has_more: boolean;
  next: string | null;
  similar: ProfileCard[];
  num_similar: number;
  num_similar_capped: boolean;
  num_results_text: string;
  num_similar_text: string;
  filters: ServerFilters;
}

export interface Option {
  value: string;
  label: string;
}

export interface SearchField {
  name: string;
  label: string;
  options: Option[];
}

export interface SearchOptions {
  genders: Option[];
  countries: { code: string; name: string }[];
  regions: Record<string, { code: string; name: string }[]>;
  minAge: number;
  maxAge: number;
  fields: SearchField[];
}

/** The result cards' links: a member's profile, liking, and the login page for visitors. */
export interface ResultLinks {
  /** "/members/{id}" */
  profileUrl: string;
  likesUrl: string;
  loginUrl: string;
}

/** What the search and the match finder both get from the server: they search the same way. */
export interface SearchPageProps extends ResultLinks {
  apiUrl: string;
  pageSize: number;
  options: SearchOptions;
  /** What Clear (search) or the first step (match finder) goes back to: the member's (or a visitor's) defaults. */
  defaults: ServerFilters;
  /** The filters of the first page (from the page's query). */
  filters: ServerFilters;
}

export interface SearchProps extends SearchPageProps {
  strings: SearchStrings;
  /** The first page, rendered by the server; null to search on mount. */
  initial: SearchResponse | null;
  /** A message about the query's filters (the server then used the defaults). */
  error: string;
}
