import { vi } from "vitest";

import { configureApi } from "../../../lib/api";
import type { ProfileCard, SearchProps, SearchResponse, SearchStrings } from "../types";

export const strings: SearchStrings = {
  title: "Search members",
  filters: "Filters",
  gender: "Looking for",
  country: "Country",
  region: "Region",
  anyRegion: "All regions",
  useLocation: "Use my location",
  locating: "Finding your location…",
  locationFound: "Your location has been filled in.",
  locationFailed: "Your location could not be found. Please choose it yourself.",
  locationDenied: "Your browser does not share your location. Please choose it yourself.",
  minAge: "From age",
  maxAge: "To age",
  any: "Any",
  search: "Search",
  like: "Like",
  liked: "Liked",
  unlike: "Unlike",
  match: "It's a match!",
  likeLogin: "Log in or sign up to like this profile.",
  clear: "Clear",
  loadMore: "Load more",
  loading: "Loading…",
  noResults: "No members match your search.",
  noResultsHelp: "Try a wider age range, another region or fewer filters.",
  cleared: "Choose what you are looking for and press Search.",
  similarTitle: "Similar members",
  noPhoto: "No photo",
  fictional: "Fictional profile",
  error: "An error has occurred.",
};

export function card(id: number, overrides: Partial<ProfileCard> = {}): ProfileCard {
  return {
    id,
    name: `Member ${id}`,
    age: 30,
    city: "Leeds",
    region: "GB-ENG",
    country: "GB",
    main_image: null,
    facts: [{ name: "place", text: overrides.city ?? "Leeds" }],
    notes: [],
    fictional: null,
    is_fictional: false,
    is_cam: false,
    ...overrides,
  };
}

export function cards(from: number, count: number): ProfileCard[] {
  return Array.from({ length: count }, (_, i) => card(from + i));
}

export const FILTERS = { gender: "female", country: "GB", region: "", min_age: 18, max_age: 99 };

export function response(overrides: Partial<SearchResponse> = {}): SearchResponse {
  const results = overrides.results ?? cards(1, 3);
  const numResults = overrides.num_results ?? results.length;
  const numSimilar = overrides.num_similar ?? 0;
  return {
    results,
    page: 1,
    num_results: numResults,
    num_results_capped: false,
    has_more: false,
    next: null,
    similar: [],
    num_similar: numSimilar,
    num_similar_capped: false,
    num_results_text: `${numResults} members found`,
    num_similar_text: `${numSimilar} similar members`,
    filters: FILTERS,
    ...overrides,
  };
}

export function makeProps(overrides: Partial<SearchProps> = {}): SearchProps {
  return {
    strings,
    apiUrl: "/api/search.php",
    profileUrl: "/members/{id}",
    likesUrl: "/api/likes.php",
    loginUrl: "/login",
    pageSize: 24,
    options: {
      genders: [
        { value: "all", label: "Everyone" },
        { value: "male", label: "Man" },
        { value: "female", label: "Woman" },
      ],
      countries: [
        { code: "GB", name: "United Kingdom" },
        { code: "US", name: "United States" },
      ],
      regions: {
        GB: [
          { code: "GB-ENG", name: "England" },
          { code: "GB-SCT", name: "Scotland" },
        ],
        US: [{ code: "US-AL", name: "Alabama" }],
      },
      minAge: 18,
      maxAge: 99,
      fields: [
        {
          name: "body_type",
          label: "Body type",
          options: [
            { value: "slim", label: "Slim" },
            { value: "curvy", label: "Curvy" },
          ],
        },
        {
          name: "relationship_status",
          label: "Relationship status",
          options: [{ value: "single", label: "Single" }],
        },
      ],
    },
    defaults: FILTERS,
    filters: FILTERS,
    initial: response(),
    error: "",
    ...overrides,
  };
}

export function json(status: number, data: unknown): Response {
  return new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
}

/** A fetch answering GET /api/search.php from a queue (the last answer repeats); records the query of each call. */
export function fakeSearchApi(...answers: Response[]) {
  const queries: URLSearchParams[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL) => {
    const url = new URL(String(input), "http://localhost");
    if (url.pathname !== "/api/search.php") throw new Error(`unexpected call ${url}`);
    queries.push(url.searchParams);
    const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
    return answer.clone();
  });
  configureApi({ fetch: fetchMock as unknown as typeof fetch, baseDelayMs: 0 });
  return { queries, fetchMock };
}
