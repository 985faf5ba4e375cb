import { useEffect, useRef, useState, type FormEvent } from "react";

import {
  AgeControl,
  controlProps,
  CountryControl,
  FieldControl,
  GenderControl,
  LocationControl,
  RegionControl,
} from "../Search/Filters";
import { Results } from "../Search/Results";
import { useSearch } from "../Search/useSearch";
import type { MatchFinderProps } from "./types";

type Step = "gender" | "age" | "location" | "more";

/** At most two of the site's search fields: a guided search stays short. */
const MAX_FIELDS = 2;

/** Match finder (route "match-finder"): a few steps prefilled from the member's profile,
 * then the results of GET /api/search.php with the same cards as the search page. */
export function MatchFinder(props: MatchFinderProps) {
  const { strings, options } = props;
  const fields = options.fields.slice(0, MAX_FIELDS);
  const steps: Step[] = [
    ...(options.genders.length > 1 ? (["gender"] as Step[]) : []),
    "age",
    "location",
    ...(fields.length ? (["more"] as Step[]) : []),
  ];
  const [index, setIndex] = useState(0);
  const [done, setDone] = useState(false);
  const { state, setValue, search, loadMore, clear } = useSearch({
    apiUrl: props.apiUrl,
    defaults: props.defaults,
    filters: props.filters,
    initial: null,
    fallbackError: strings.error,
  });
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, [index, done]);

  const control = controlProps(state, setValue, options, strings);
  const step = steps[index];
  const last = index === steps.length - 1;

  function next(event: FormEvent) {
    event.preventDefault();
    if (!last) {
      setIndex(index + 1);
      return;
    }
    setDone(true);
    void search();
  }

  function restart() {
    clear();
    setDone(false);
    setIndex(0);
  }

  if (done) {
    return (
      <div data-testid="match-finder-results">
        <h1 className="h3 mb-3" tabIndex={-1} ref={heading}>
          {strings.resultsTitle}
        </h1>
        <Results state={state} strings={strings} links={props} onLoadMore={() => void loadMore()} />
        <button type="button" className="btn btn-outline-secondary" onClick={restart} data-testid="match-finder-restart">
          {strings.restart}
        </button>
      </div>
    );
  }

  const titles: Record<Step, string> = {
    gender: strings.genderTitle,
    age: strings.ageTitle,
    location: strings.locationTitle,
    more: strings.moreTitle,
  };
  return (
    <div className="row justify-content-center" data-testid="match-finder">
      <form className="col-md-8 col-lg-6" onSubmit={next} noValidate>
        <p className="text-body-secondary small mb-1" data-testid="match-finder-progress">
          {strings.stepOf.replace("{step}", String(index + 1)).replace("{total}", String(steps.length))}
        </p>
        <h1 className="h3 mb-2" tabIndex={-1} ref={heading} data-testid="match-finder-title">
          {titles[step]}
        </h1>
        {index === 0 && <p className="text-body-secondary">{strings.intro}</p>}
        <div className="d-grid gap-3 my-3">
          {step === "gender" && <GenderControl {...control} />}
          {step === "age" && (
            <div className="row g-2">
              <div className="col-6">
                <AgeControl which="min_age" {...control} />
              </div>
              <div className="col-6">
                <AgeControl which="max_age" {...control} />
              </div>
            </div>
          )}
          {step === "location" && (
            <>
              <LocationControl {...control} className="" />
              <CountryControl {...control} />
              <RegionControl {...control} />
            </>
          )}
          {step === "more" && fields.map((field) => <FieldControl key={field.name} field={field} {...control} />)}
        </div>
        <div className="d-flex justify-content-between">
          {index > 0 ? (
            <button type="button" className="btn btn-outline-secondary" onClick={() => setIndex(index - 1)} data-testid="match-finder-back">
              {strings.back}
            </button>
          ) : (
            <span />
          )}
          <button type="submit" className="btn btn-primary" data-testid="match-finder-next">
            {last ? strings.showMatches : strings.next}
          </button>
        </div>
      </form>
    </div>
  );
}
