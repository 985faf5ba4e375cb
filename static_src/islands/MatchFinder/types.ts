import type { SearchOptions, SearchStrings, ServerFilters } from "../Search/types";

/** Props of the MatchFinder island (apps.profiles.views_search.match_finder_page). */
export interface MatchFinderStrings extends SearchStrings {
  intro: string;
  stepOf: string;
  genderTitle: string;
  ageTitle: string;
  locationTitle: string;
  moreTitle: string;
  back: string;
  next: string;
  showMatches: string;
  resultsTitle: string;
  restart: string;
}

export interface MatchFinderProps {
  strings: MatchFinderStrings;
  apiUrl: string;
  profileUrl: string;
  likesUrl: string;
  loginUrl: string;
  pageSize: number;
  options: SearchOptions;
  /** The member's defaults: the genders they look for, their country, every age. */
  defaults: ServerFilters;
  filters: ServerFilters;
}
