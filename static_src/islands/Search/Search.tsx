import type { FormEvent, ReactNode } from "react";

import {
  AgeControl,
  CountryControl,
  FieldControl,
  GenderControl,
  RegionControl,
  regionsOf,
  type ControlProps,
} from "./Filters";
import { Results } from "./Results";
import type { SearchProps } from "./types";
import { useSearch } from "./useSearch";

function Col({ children }: { children: ReactNode }) {
  return <div className="col-6 col-md-4 col-lg-3">{children}</div>;
}

/** Search members (route "members"): filters, the count, results appended page by page,
 * similar results, Clear. The filters are kept in the address bar. */
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
  const control: ControlProps = {
    values: state.values,
    options,
    strings,
    fieldErrors: state.fieldErrors,
    onChange: setValue,
  };

  function submit(event: FormEvent) {
    event.preventDefault();
    void search();
  }

  return (
    <div data-testid="search">
      <h1 className="h3 mb-3">{strings.title}</h1>
      <form className="card card-body mb-4" onSubmit={submit} aria-label={strings.filters} noValidate>
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
        <div className="d-flex gap-2 mt-3">
          <button type="submit" className="btn btn-primary" disabled={state.loading} data-testid="search-submit">
            {strings.search}
          </button>
          <button type="button" className="btn btn-outline-secondary" onClick={clear} data-testid="search-clear">
            {strings.clear}
          </button>
        </div>
      </form>
      {state.error && (
        <div className="alert alert-danger" role="alert" data-testid="search-error">
          {state.error}
        </div>
      )}
      <Results
        state={state}
        strings={strings}
        profileUrl={props.profileUrl}
        likesUrl={props.likesUrl}
        loginUrl={props.loginUrl}
        onLoadMore={() => void loadMore()}
      />
    </div>
  );
}
