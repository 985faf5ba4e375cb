import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from "react";

import {
  AgeControl,
  controlProps,
  CountryControl,
  FieldControl,
  filtersSummary,
  GenderControl,
  LocationControl,
  RegionControl,
  regionsOf,
} from "./Filters";
import { Results } from "./Results";
import type { SearchProps } from "./types";
import { useSearch } from "./useSearch";

function Col({ children }: { children: ReactNode }) {
  return <div className="col-6 col-md-4 col-lg-3">{children}</div>;
}

/** Search members (route "members"): filters, the count, results appended page by page,
 * similar results, Clear. The filters are kept in the address bar. On phones (< md) the
 * results come first: the form is folded behind a "Filters" disclosure button that shows
 * the current choice in one line and opens the form in place (_search.scss); a search
 * folds it again. From md up the form is always shown and the button is not. */
export function Search(props: SearchProps) {
  const { strings, options } = props;
  const { state, setValue, search, loadMore, clear } = useSearch({
    apiUrl: props.apiUrl,
    defaults: props.defaults,
    filters: props.filters,
    initial: props.initial,
    error: props.error,
    fallbackError: strings.error,
    syncUrl: true,
  });
  const control = controlProps(state, setValue, options, strings);

  const formId = useId();
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  // A field the server refused is shown (phones: the form opens).
  const hasFieldErrors = Object.keys(state.fieldErrors).length > 0;
  useEffect(() => {
    if (hasFieldErrors) setOpen(true);
  }, [hasFieldErrors]);

  function submit(event: FormEvent) {
    event.preventDefault();
    void search();
    if (open) {
      setOpen(false);
      // The form folds away on phones: focus stays on the button that opens it again.
      if (toggle.current && toggle.current.offsetParent !== null) toggle.current.focus();
    }
  }

  return (
    <div data-testid="search">
      <h1 className="h3 mb-3">{strings.title}</h1>
      <button
        ref={toggle}
        type="button"
        className="search-filters-toggle btn btn-outline-secondary d-md-none mb-3"
        aria-expanded={open}
        aria-controls={formId}
        onClick={() => setOpen((was) => !was)}
        data-testid="search-filters-toggle"
      >
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" width="18" height="18" fill="currentColor" aria-hidden="true" focusable="false">
          <path d="M6 10.5a.5.5 0 0 1 .5-.5h3a.5.5 0 0 1 0 1h-3a.5.5 0 0 1-.5-.5m-2-3a.5.5 0 0 1 .5-.5h7a.5.5 0 0 1 0 1h-7a.5.5 0 0 1-.5-.5m-2-3a.5.5 0 0 1 .5-.5h11a.5.5 0 0 1 0 1h-11a.5.5 0 0 1-.5-.5" />
        </svg>
        <span className="search-filters-text">
          <span className="search-filters-label">{strings.filters}</span>
          <span className="search-filters-summary" data-testid="search-filters-summary">
            {filtersSummary(state.values, options)}
          </span>
        </span>
        <svg className="search-filters-chevron" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" width="16" height="16" fill="currentColor" aria-hidden="true" focusable="false">
          <path fillRule="evenodd" d="M1.646 4.646a.5.5 0 0 1 .708 0L8 10.293l5.646-5.647a.5.5 0 0 1 .708.708l-6 6a.5.5 0 0 1-.708 0l-6-6a.5.5 0 0 1 0-.708" />
        </svg>
      </button>
      <form
        id={formId}
        className={`search-filters card card-body mb-4${open ? " search-filters-open" : ""}`}
        onSubmit={submit}
        aria-label={strings.filters}
        noValidate
        data-testid="search-filters"
      >
        <div className="row g-2 align-items-end">
          {options.genders.length > 1 && (
            <Col>
              <GenderControl {...control} />
            </Col>
          )}
          <Col>
            <CountryControl {...control} />
          </Col>
          {regionsOf(state.values, options).length > 0 && (
            <Col>
              <RegionControl {...control} />
            </Col>
          )}
          <Col>
            <AgeControl which="min_age" {...control} />
          </Col>
          <Col>
            <AgeControl which="max_age" {...control} />
          </Col>
          {options.fields.map((field) => (
            <Col key={field.name}>
              <FieldControl field={field} {...control} />
            </Col>
          ))}
        </div>
        <LocationControl {...control} className="mt-3" />
        <div className="d-flex gap-2 mt-3">
          <button type="submit" className="btn btn-primary" disabled={state.loading} data-testid="search-submit">
            {strings.search}
          </button>
          <button type="button" className="btn btn-outline-secondary" onClick={clear} data-testid="search-clear">
            {strings.clear}
          </button>
        </div>
      </form>
      <Results state={state} strings={strings} links={props} onLoadMore={() => void loadMore()} />
    </div>
  );
}
