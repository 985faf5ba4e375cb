import { cleanup, configure, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { resetApiConfig } from "../../../lib/api";
import { appStore, initialAppState } from "../../../lib/store";
import { Search } from "../Search";
import type { SearchProps } from "../types";
import { card, cards, fakeSearchApi, json, makeProps, response } from "./fixtures";

configure({ asyncUtilTimeout: 5000 });

beforeEach(() => {
  resetApiConfig();
  appStore.set(initialAppState());
  window.history.replaceState(null, "", "/members");
});

afterEach(() => {
  cleanup();
});

function renderSearch(overrides: Partial<SearchProps> = {}) {
  return render(<Search {...makeProps(overrides)} />);
}

function resultNames(testId = "search-results"): string[] {
  return within(screen.getByTestId(testId))
    .getAllByTestId("search-card-name")
    .map((el) => el.textContent ?? "");
}

describe("Search", () => {
  it("shows the server's first page with its count at once", () => {
    renderSearch();
    expect(screen.getByTestId("search-count").textContent).toBe("3 members found");
    expect(resultNames()).toEqual(["Member 1", "Member 2", "Member 3"]);
    const links = screen.getAllByTestId("search-card").map((a) => a.getAttribute("href"));
    expect(links).toEqual(["/members/1", "/members/2", "/members/3"]);
    expect(screen.queryByTestId("search-load-more")).toBeNull();
  });

  it("renders photos, placeholders, the server's facts, notes and the fictional label", () => {
    const fictional = { icon: "★", label: "made-up profile", warning: "Profiles marked with ★ are made up." };
    renderSearch({
      initial: response({
        results: [
          card(1, {
            main_image: { thumb_filename: "/media/t/1.jpg", match_filename: "/media/1.jpg" },
            is_fictional: true,
            fictional,
            facts: [
              { name: "place", text: "Leeds, England" },
              { name: "details", text: "Single · Slim" },
            ],
            notes: [{ kind: "fictional", text: "made-up profile" }],
          }),
          card(2, { name: "<b>Bold</b>", age: null, city: "", facts: [] }),
        ],
      }),
    });
    const [first, second] = screen.getAllByTestId("search-card");
    expect(first!.querySelector("img")!.getAttribute("src")).toBe("/media/t/1.jpg");
    const mark = within(first!).getByTestId("search-card-fictional");
    expect(mark.textContent).toBe("★made-up profile");
    expect(mark.getAttribute("title")).toBe(fictional.warning);
    expect(within(first!).getByTestId("search-card-name").textContent).toBe("Member 1");
    expect(within(first!).getByTestId("search-card-age").textContent).toBe(", 30");
    expect(within(first!).getByTestId("search-card-fact-place").textContent).toBe("Leeds, England");
    expect(within(first!).getByTestId("search-card-fact-details").textContent).toBe("Single · Slim");
    expect(within(first!).getByTestId("search-card-note-fictional").textContent).toBe("★ made-up profile");
    // Only what the server sent: no city of its own, no age when the site hides it, text escaped.
    expect(within(second!).getByRole("img", { name: "No photo" })).toBeTruthy();
    expect(within(second!).queryByTestId("search-card-age")).toBeNull();
    expect(within(second!).queryByTestId("search-card-notes")).toBeNull();
    expect(within(second!).getByTestId("search-card-name").textContent).toBe("<b>Bold</b>");
    expect(second!.querySelector("b")).toBeNull();
  });

  it("shows no fact the server did not send, even when the card has a city", () => {
    renderSearch({ initial: response({ results: [card(3, { city: "York", facts: [] })] }) });
    const only = screen.getByTestId("search-card");
    expect(only.textContent).not.toContain("York");
  });

  it("sends the chosen filters as the API's parameters and keeps them in the address", async () => {
    const api = fakeSearchApi(json(200, response({ results: cards(10, 2), num_results: 2 })));
    renderSearch();
    fireEvent.change(screen.getByLabelText("Looking for"), { target: { value: "male" } });
    fireEvent.change(screen.getByLabelText("Country"), { target: { value: "US" } });
    fireEvent.change(screen.getByLabelText("Region"), { target: { value: "US-AL" } });
    fireEvent.change(screen.getByLabelText("From age"), { target: { value: "25" } });
    fireEvent.change(screen.getByLabelText("To age"), { target: { value: "40" } });
    fireEvent.change(screen.getByLabelText("Body type"), { target: { value: "slim" } });
    fireEvent.click(screen.getByTestId("search-submit"));
    await waitFor(() => expect(resultNames()).toEqual(["Member 10", "Member 11"]));
    const query = Object.fromEntries(api.queries[0]!.entries());
    expect(query).toEqual({
      gender: "male",
      country: "US",
      region: "US-AL",
      min_age: "25",
      max_age: "40",
      body_type: "slim",
    });
    expect(screen.getByTestId("search-count").textContent).toBe("2 members found");
    expect(window.location.search).toBe("?gender=male&country=US&region=US-AL&min_age=25&max_age=40&body_type=slim");
  });

  it("drops the region when the country changes", () => {
    renderSearch({ filters: { ...makeProps().filters, region: "GB-SCT" } });
    expect((screen.getByLabelText("Region") as HTMLSelectElement).value).toBe("GB-SCT");
    fireEvent.change(screen.getByLabelText("Country"), { target: { value: "US" } });
    expect((screen.getByLabelText("Region") as HTMLSelectElement).value).toBe("");
  });

  it("appends the next page on Load more, with the cursor", async () => {
    const api = fakeSearchApi(
      json(200, response({ results: cards(25, 24), page: 2, num_results: 60, has_more: true, next: "c2" })),
    );
    renderSearch({ initial: response({ results: cards(1, 24), num_results: 60, has_more: true, next: "c1" }) });
    expect(screen.getAllByTestId("search-card")).toHaveLength(24);
    fireEvent.click(screen.getByTestId("search-load-more"));
    await waitFor(() => expect(screen.getAllByTestId("search-card")).toHaveLength(48));
    expect(api.queries[0]!.get("cursor")).toBe("c1");
    expect(api.queries[0]!.get("page")).toBe("2");
    expect(resultNames()[0]).toBe("Member 1");
    expect(resultNames()[47]).toBe("Member 48");
    expect(screen.getByTestId("search-count").textContent).toBe("60 members found");
    expect(screen.getByTestId("search-load-more")).toBeTruthy();
  });

  it("hides Load more after the last page", async () => {
    fakeSearchApi(json(200, response({ results: cards(25, 2), page: 2, num_results: 26, has_more: false })));
    renderSearch({ initial: response({ results: cards(1, 24), num_results: 26, has_more: true, next: "c1" }) });
    fireEvent.click(screen.getByTestId("search-load-more"));
    await waitFor(() => expect(screen.getAllByTestId("search-card")).toHaveLength(26));
    expect(screen.queryByTestId("search-load-more")).toBeNull();
  });

  it("a new search replaces the results instead of appending", async () => {
    fakeSearchApi(json(200, response({ results: cards(50, 1), num_results: 1 })));
    renderSearch({ initial: response({ results: cards(1, 24), num_results: 60, has_more: true, next: "c1" }) });
    fireEvent.click(screen.getByTestId("search-submit"));
    await waitFor(() => expect(resultNames()).toEqual(["Member 50"]));
    expect(screen.getByTestId("search-count").textContent).toBe("1 members found");
  });

  it("Clear resets the filters, the results and the counts", async () => {
    fakeSearchApi(json(200, response({ results: cards(10, 1), num_results: 1 })));
    renderSearch({
      filters: { gender: "male", country: "US", region: "US-AL", min_age: 30, max_age: 40, body_type: "slim" },
      initial: response({ results: cards(1, 2), similar: cards(5, 2), num_similar: 2 }),
    });
    window.history.replaceState(null, "", "/members?gender=male");
    fireEvent.click(screen.getByTestId("search-clear"));
    expect(screen.queryByTestId("search-card")).toBeNull();
    expect(screen.queryByTestId("search-count")).toBeNull();
    expect(screen.queryByTestId("search-similar")).toBeNull();
    expect(screen.getByTestId("search-cleared").textContent).toBe(strings().cleared);
    expect((screen.getByLabelText("Looking for") as HTMLSelectElement).value).toBe("female");
    expect((screen.getByLabelText("Country") as HTMLSelectElement).value).toBe("GB");
    expect((screen.getByLabelText("Region") as HTMLSelectElement).value).toBe("");
    expect((screen.getByLabelText("From age") as HTMLSelectElement).value).toBe("18");
    expect((screen.getByLabelText("Body type") as HTMLSelectElement).value).toBe("");
    expect(window.location.search).toBe("");
  });

  it("shows similar results with their own count", () => {
    renderSearch({ initial: response({ results: cards(1, 2), similar: cards(7, 3), num_similar: 12 }) });
    expect(screen.getByTestId("search-count").textContent).toBe("2 members found");
    const similar = screen.getByTestId("search-similar");
    expect(within(similar).getByRole("heading").textContent).toBe("Similar members");
    expect(screen.getByTestId("search-similar-count").textContent).toBe("12 similar members");
    expect(resultNames("search-similar-results")).toEqual(["Member 7", "Member 8", "Member 9"]);
  });

  it("shows no similar section when there are none, and a message for no results", () => {
    renderSearch({ initial: response({ results: [], num_results: 0 }) });
    expect(screen.queryByTestId("search-similar")).toBeNull();
    const empty = screen.getByTestId("search-empty");
    expect(empty.className).toBe("empty-state");
    expect(empty.querySelector(".empty-state-icon")!.getAttribute("aria-hidden")).toBe("true");
    expect(empty.querySelector(".empty-state-title")!.textContent).toBe("No members match your search.");
    expect(empty.querySelector(".empty-state-text")!.textContent).toBe("Try a wider age range, another region or fewer filters.");
  });

  it("shows the server's error message and marks the field", async () => {
    fakeSearchApi(
      json(400, {
        error: {
          code: "invalid_search",
          message: "The maximum age cannot be lower than the minimum age.",
          fields: { max_age: ["The maximum age cannot be lower than the minimum age."] },
        },
      }),
    );
    renderSearch();
    fireEvent.change(screen.getByLabelText("From age"), { target: { value: "50" } });
    fireEvent.change(screen.getByLabelText("To age"), { target: { value: "30" } });
    fireEvent.click(screen.getByTestId("search-submit"));
    await waitFor(() =>
      expect(screen.getByTestId("search-error").textContent).toBe(
        "The maximum age cannot be lower than the minimum age.",
      ),
    );
    const maxAge = screen.getByLabelText("To age");
    expect(maxAge.className).toContain("is-invalid");
    expect(maxAge.getAttribute("aria-invalid")).toBe("true");
    // The earlier results stay.
    expect(resultNames()).toHaveLength(3);
    fireEvent.change(maxAge, { target: { value: "60" } });
    expect(screen.getByLabelText("To age").className).not.toContain("is-invalid");
  });

  it("shows the fallback message when the server cannot be reached", async () => {
    const api = fakeSearchApi(json(200, {}));
    api.fetchMock.mockRejectedValue(new TypeError("Failed to fetch"));
    renderSearch();
    fireEvent.click(screen.getByTestId("search-submit"));
    await waitFor(() => expect(screen.getByTestId("search-error")).toBeTruthy());
  });

  it("shows the server's message about the page's query", () => {
    renderSearch({ error: "Choose an age from 18 to 99." });
    expect(screen.getByTestId("search-error").textContent).toBe("Choose an age from 18 to 99.");
  });

  it("phones: a Filters disclosure button with the current choice opens the form in place", async () => {
    fakeSearchApi(json(200, response({ results: cards(10, 2), num_results: 2 })));
    renderSearch({ filters: { gender: "female", country: "GB", region: "GB-ENG", min_age: 18, max_age: 35, body_type: "slim" } });
    const toggle = screen.getByTestId("search-filters-toggle");
    const form = screen.getByTestId("search-filters");
    expect(toggle.tagName).toBe("BUTTON");
    expect(toggle.getAttribute("type")).toBe("button");
    expect(toggle.getAttribute("aria-controls")).toBe(form.id);
    expect(form.id).not.toBe("");
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(form.className).not.toContain("search-filters-open");
    expect(toggle.querySelectorAll('svg[aria-hidden="true"]')).toHaveLength(2);
    expect(screen.getByTestId("search-filters-summary").textContent).toBe(
      "Woman · 18–35 · United Kingdom · England · Slim",
    );
    // The results come after the button, the form opens between them.
    expect(toggle.compareDocumentPosition(screen.getByTestId("search-results")) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();

    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    expect(form.className).toContain("search-filters-open");
    // The summary follows the form.
    fireEvent.change(screen.getByLabelText("Country"), { target: { value: "US" } });
    fireEvent.change(screen.getByLabelText("To age"), { target: { value: "40" } });
    expect(screen.getByTestId("search-filters-summary").textContent).toBe("Woman · 18–40 · United States · Slim");

    // A search folds the form again.
    fireEvent.click(screen.getByTestId("search-submit"));
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    await waitFor(() => expect(resultNames()).toEqual(["Member 10", "Member 11"]));
    fireEvent.click(toggle);
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
  });

  it("phones: the form opens by itself when the server refuses a field", async () => {
    fakeSearchApi(
      json(400, {
        error: { code: "invalid_search", message: "Too young.", fields: { min_age: ["Too young."] } },
      }),
    );
    renderSearch();
    fireEvent.click(screen.getByTestId("search-submit"));
    await waitFor(() => expect(screen.getByTestId("search-filters-toggle").getAttribute("aria-expanded")).toBe("true"));
    expect(screen.getByTestId("search-filters").className).toContain("search-filters-open");
  });

  it("has no gender choice on a one-gender site", () => {
    const props = makeProps();
    renderSearch({ options: { ...props.options, genders: [{ value: "male", label: "Man" }] } });
    expect(screen.queryByLabelText("Looking for")).toBeNull();
    expect(screen.getByTestId("search-filters-summary").textContent).toBe("18–99 · United Kingdom");
  });
});

function strings() {
  return makeProps().strings;
}
