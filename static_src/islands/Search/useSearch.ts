/**
 * The search state (spec §3 "Search state", §4): filters, results appended page by page,
 * counts, similar results with their own count. Clear resets results and counts.
 */
import { useCallback, useRef, useState } from "react";

import { ApiError, get, type Params } from "../../lib/api";
import type { FilterValues, ProfileCard, SearchResponse, ServerFilters } from "./types";

export interface SearchState {
  values: FilterValues;
  results: ProfileCard[];
  page: number;
  numResults: number;
  numResultsText: string;
  similar: ProfileCard[];
  numSimilar: number;
  numSimilarText: string;
  next: string | null;
  hasMore: boolean;
  /** False before the first search and after Clear. */
  searched: boolean;
  loading: boolean;
  error: string;
  fieldErrors: Record<string, string[]>;
}

/** Server filters as form values: numbers as strings, interests' first choice. */
export function toValues(filters: ServerFilters): FilterValues {
  const out: FilterValues = {};
  for (const [key, value] of Object.entries(filters)) {
    out[key] = Array.isArray(value) ? (value[0] ?? "") : String(value ?? "");
  }
  return out;
}

/** The query parameters of a search: blank controls are left out. */
export function toParams(values: FilterValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) if (value !== "") out[key] = value;
  return out;
}

function emptyResults(values: FilterValues): SearchState {
  return {
    values,
    results: [],
    page: 0,
    numResults: 0,
    numResultsText: "",
    similar: [],
    numSimilar: 0,
    numSimilarText: "",
    next: null,
    hasMore: false,
    searched: false,
    loading: false,
    error: "",
    fieldErrors: {},
  };
}

function fromResponse(values: FilterValues, data: SearchResponse): SearchState {
  return {
    ...emptyResults(values),
    results: data.results,
    page: data.page,
    numResults: data.num_results,
    numResultsText: data.num_results_text,
    similar: data.similar,
    numSimilar: data.num_similar,
    numSimilarText: data.num_similar_text,
    next: data.next,
    hasMore: data.has_more,
    searched: true,
  };
}

export interface UseSearchOptions {
  apiUrl: string;
  defaults: ServerFilters;
  filters: ServerFilters;
  initial: SearchResponse | null;
  error?: string;
  fallbackError: string;
  /** Keep the filters in the address bar (the search page; not the match finder). */
  syncUrl?: boolean;
}

function writeUrl(values: FilterValues | null): void {
  if (typeof window === "undefined" || !window.history?.replaceState) return;
  const query = values ? new URLSearchParams(toParams(values)).toString() : "";
  window.history.replaceState(window.history.state, "", window.location.pathname + (query ? `?${query}` : ""));
}

export function useSearch(options: UseSearchOptions) {
  const { apiUrl, fallbackError, syncUrl = false } = options;
  const defaults = useRef(toValues(options.defaults));
  const [state, setState] = useState<SearchState>(() => {
    const values = toValues(options.filters);
    const base = options.initial ? fromResponse(values, options.initial) : emptyResults(values);
    return { ...base, error: options.error ?? "" };
  });
  const controller = useRef<AbortController | null>(null);
  const stateRef = useRef(state);
  stateRef.current = state;

  const run = useCallback(
    async (params: Params, apply: (data: SearchResponse) => (previous: SearchState) => SearchState) => {
      controller.current?.abort();
      const abort = new AbortController();
      controller.current = abort;
      setState((previous) => ({ ...previous, loading: true, error: "", fieldErrors: {} }));
      try {
        const data = await get<SearchResponse>(apiUrl, { params, signal: abort.signal });
        if (abort.signal.aborted) return;
        setState(apply(data));
      } catch (err) {
        if (abort.signal.aborted) return;
        const message = err instanceof ApiError ? err.message : fallbackError;
        const fields = err instanceof ApiError ? err.fields : {};
        setState((previous) => ({ ...previous, loading: false, error: message, fieldErrors: fields }));
      }
    },
    [apiUrl, fallbackError],
  );

  const setValue = useCallback((name: string, value: string) => {
    setState((previous) => {
      const values = { ...previous.values, [name]: value };
      if (name === "country") values.region = "";
      const fieldErrors = { ...previous.fieldErrors };
      delete fieldErrors[name];
      return { ...previous, values, fieldErrors };
    });
  }, []);

  /** Page 1 for the current (or given) filters; replaces results and counts. */
  const search = useCallback(
    (values?: FilterValues) => {
      const chosen = values ?? stateRef.current.values;
      return run(toParams(chosen), (data) => () => {
        if (syncUrl) writeUrl(chosen);
        return fromResponse(chosen, data);
      });
    },
    [run, syncUrl],
  );

  /** The next page, appended (spec §4). */
  const loadMore = useCallback(() => {
    const current = stateRef.current;
    if (!current.hasMore || !current.next) return Promise.resolve();
    const params = { ...toParams(current.values), cursor: current.next, page: String(current.page + 1) };
    return run(params, (data) => (previous) => ({
      ...previous,
      loading: false,
      results: [...previous.results, ...data.results],
      page: data.page,
      next: data.next,
      hasMore: data.has_more,
      numResults: data.num_results,
      numResultsText: data.num_results_text,
    }));
  }, [run]);

  /** Back to the defaults, with no results and no counts (spec §4). */
  const clear = useCallback(() => {
    controller.current?.abort();
    if (syncUrl) writeUrl(null);
    setState(emptyResults(defaults.current));
  }, [syncUrl]);

  return { state, setValue, search, loadMore, clear };
}
