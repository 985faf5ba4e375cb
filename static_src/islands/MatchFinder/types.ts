import type { SearchPageProps, SearchStrings } from "../Search/types";

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

export interface MatchFinderProps extends SearchPageProps {
  strings: MatchFinderStrings;
}
