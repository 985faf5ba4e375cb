import { cleanup, configure, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { resetApiConfig } from "../../../lib/api";
import { cards, fakeSearchApi, json, makeProps as makeSearchProps, response, strings as searchStrings } from "../../Search/__tests__/fixtures";
import { MatchFinder } from "../MatchFinder";
import type { MatchFinderProps } from "../types";

configure({ asyncUtilTimeout: 5000 });

function makeProps(overrides: Partial<MatchFinderProps> = {}): MatchFinderProps {
  const { strings: _s, initial: _i, error: _e, ...search } = makeSearchProps({
    filters: { gender: "male", country: "GB", region: "", min_age: 18, max_age: 99 },
    defaults: { gender: "male", country: "GB", region: "", min_age: 18, max_age: 99 },
  });
  return {
    ...search,
    strings: {
      ...searchStrings,
      intro: "Answer a few questions.",
      stepOf: "Step {step} of {total}",
      genderTitle: "Who are you looking for?",
      ageTitle: "How old should they be?",
      locationTitle: "Where should they live?",
      moreTitle: "A little more about them",
      back: "Back",
      next: "Next",
      showMatches: "Show my matches",
      resultsTitle: "Your matches",
      restart: "Start again",
    },
    ...overrides,
  };
}

beforeEach(() => {
  resetApiConfig();
});

afterEach(() => {
  cleanup();
});

describe("MatchFinder", () => {
  it("walks the steps prefilled from the profile and searches with the choices", async () => {
    const api = fakeSearchApi(json(200, response({ results: cards(1, 2), similar: cards(9, 1), num_similar: 1 })));
    render(<MatchFinder {...makeProps()} />);
    expect(screen.getByTestId("match-finder-title").textContent).toBe("Who are you looking for?");
    expect(screen.getByTestId("match-finder-progress").textContent).toBe("Step 1 of 4");
    expect((screen.getByLabelText("Looking for") as HTMLSelectElement).value).toBe("male");
    fireEvent.click(screen.getByTestId("match-finder-next"));

    expect(screen.getByTestId("match-finder-title").textContent).toBe("How old should they be?");
    fireEvent.change(screen.getByLabelText("From age"), { target: { value: "30" } });
    fireEvent.change(screen.getByLabelText("To age"), { target: { value: "45" } });
    fireEvent.click(screen.getByTestId("match-finder-next"));

    expect(screen.getByTestId("match-finder-title").textContent).toBe("Where should they live?");
    expect((screen.getByLabelText("Country") as HTMLSelectElement).value).toBe("GB");
    fireEvent.change(screen.getByLabelText("Region"), { target: { value: "GB-SCT" } });
    fireEvent.click(screen.getByTestId("match-finder-next"));

    expect(screen.getByTestId("match-finder-title").textContent).toBe("A little more about them");
    fireEvent.change(screen.getByLabelText("Relationship status"), { target: { value: "single" } });
    expect(screen.getByTestId("match-finder-next").textContent).toBe("Show my matches");
    fireEvent.click(screen.getByTestId("match-finder-next"));

    await waitFor(() => expect(screen.getAllByTestId("search-card")).toHaveLength(3));
    expect(Object.fromEntries(api.queries[0]!.entries())).toEqual({
      gender: "male",
      country: "GB",
      region: "GB-SCT",
      min_age: "30",
      max_age: "45",
      relationship_status: "single",
    });
    const results = screen.getByTestId("match-finder-results");
    expect(within(results).getByTestId("search-count").textContent).toBe("2 members found");
    expect(within(results).getByTestId("search-similar-count").textContent).toBe("1 similar members");
  });

  it("goes back a step and starts again", async () => {
    fakeSearchApi(json(200, response()));
    render(<MatchFinder {...makeProps()} />);
    fireEvent.click(screen.getByTestId("match-finder-next"));
    fireEvent.click(screen.getByTestId("match-finder-back"));
    expect(screen.getByTestId("match-finder-title").textContent).toBe("Who are you looking for?");
    for (let i = 0; i < 4; i++) fireEvent.click(screen.getByTestId("match-finder-next"));
    await waitFor(() => expect(screen.getAllByTestId("search-card")).toHaveLength(3));
    fireEvent.click(screen.getByTestId("match-finder-restart"));
    expect(screen.getByTestId("match-finder-title").textContent).toBe("Who are you looking for?");
  });

  it("skips the gender step on a one-gender site and the fields step without fields", () => {
    const props = makeProps();
    render(<MatchFinder {...makeProps({ options: { ...props.options, genders: [{ value: "male", label: "Man" }], fields: [] } })} />);
    expect(screen.getByTestId("match-finder-title").textContent).toBe("How old should they be?");
    expect(screen.getByTestId("match-finder-progress").textContent).toBe("Step 1 of 2");
  });
});
