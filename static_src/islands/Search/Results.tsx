import { useState } from "react";

import { ApiError, del, post } from "../../lib/api";
import { EmptyState } from "../../lib/EmptyState";
import { CardFacts, CardPhoto, CardTitle } from "../../lib/profileCard";
import { appStore } from "../../lib/store";
import type { SearchState } from "./useSearch";
import type { ProfileCard, ResultLinks, SearchStrings } from "./types";

/** No results' icon (Bootstrap Icons "search"). */
const SEARCH_ICON =
  "M11.742 10.344a6.5 6.5 0 1 0-1.397 1.398h-.001q.044.06.098.115l3.85 3.85a1 1 0 0 0 1.415-1.414l-3.85-3.85a1 1 0 0 0-.115-.1zM12 6.5a5.5 5.5 0 1 1-11 0 5.5 5.5 0 0 1 11 0";

type LikeState = "idle" | "liked" | "match" | "busy";

/** Like / unlike from a result card (issue 5). Visitors get the login message. */
export function LikeButton({
  card,
  strings,
  likesUrl,
  loginUrl,
}: {
  card: ProfileCard;
  strings: SearchStrings;
  likesUrl: string;
  loginUrl: string;
}) {
  const [state, setState] = useState<LikeState>("idle");
  const [message, setMessage] = useState<string | null>(null);
  const liked = state === "liked" || state === "match";

  const toggle = async () => {
    if (!appStore.get().user) {
      setMessage(strings.likeLogin);
      return;
    }
    const was = state;
    setState("busy");
    setMessage(null);
    try {
      if (liked || was === "liked" || was === "match") {
        await del(likesUrl, { body: { profile: card.id }, retries: 0 });
        setState("idle");
      } else {
        const answer = await post<{ match: boolean }>(likesUrl, { profile: card.id }, { retries: 0 });
        setState(answer.match ? "match" : "liked");
      }
    } catch (error) {
      setState(was);
      setMessage(error instanceof ApiError ? error.message : strings.error);
    }
  };

  return (
    <div className="card-footer bg-transparent border-0 pt-0 px-2 pb-2 px-sm-3">
      <button
        type="button"
        className={`btn btn-sm w-100 ${liked ? "btn-primary" : "btn-outline-primary"}`}
        onClick={() => void toggle()}
        disabled={state === "busy"}
        aria-pressed={liked}
        data-testid="search-card-like"
      >
        {liked ? strings.unlike : strings.like}
      </button>
      {state === "match" && (
        <p className="small text-primary fw-semibold mb-0 mt-1" role="status" data-testid="search-card-match">
          {strings.match}
        </p>
      )}
      {state === "liked" && (
        <p className="small text-body-secondary mb-0 mt-1" role="status" data-testid="search-card-liked">
          {strings.liked}
        </p>
      )}
      {message && (
        <p className="small text-danger mb-0 mt-1" role="alert" data-testid="search-card-like-message">
          {appStore.get().user ? message : <a href={loginUrl}>{message}</a>}
        </p>
      )}
    </div>
  );
}

export function Card({
  card,
  profileUrl,
  likesUrl,
  loginUrl,
  strings,
}: {
  card: ProfileCard;
  profileUrl: string;
  likesUrl: string;
  loginUrl: string;
  strings: SearchStrings;
}) {
  return (
    <li className="col">
      <div className="card h-100">
      <a
        className="text-decoration-none text-body search-card"
        href={profileUrl.replace("{id}", String(card.id))}
        data-testid="search-card"
      >
        <CardPhoto card={card} noPhoto={strings.noPhoto} loading="lazy" />
        <div className="card-body p-2 p-sm-3">
          <CardTitle card={card} className="card-title fw-semibold" testPrefix="search-card" />
          <CardFacts card={card} testPrefix="search-card" />
        </div>
      </a>
      <LikeButton card={card} strings={strings} likesUrl={likesUrl} loginUrl={loginUrl} />
      </div>
    </li>
  );
}

function Grid({
  cards,
  testId,
  ...rest
}: {
  cards: ProfileCard[];
  testId: string;
  profileUrl: string;
  likesUrl: string;
  loginUrl: string;
  strings: SearchStrings;
}) {
  return (
    <ul className="row row-cols-2 row-cols-sm-3 row-cols-lg-4 g-3 list-unstyled mb-4" data-testid={testId}>
      {cards.map((card) => (
        <Card key={card.id} card={card} {...rest} />
      ))}
    </ul>
  );
}

export interface ResultsProps {
  state: SearchState;
  strings: SearchStrings;
  links: ResultLinks;
  onLoadMore: () => void;
}

/** The search's error, the count, the cards, "Load more" and the similar results with their own count. */
export function Results({ state, strings, links, onLoadMore }: ResultsProps) {
  return (
    <>
      {state.error && (
        <div className="alert alert-danger" role="alert" data-testid="search-error">
          {state.error}
        </div>
      )}
      <ResultList state={state} strings={strings} links={links} onLoadMore={onLoadMore} />
    </>
  );
}

function ResultList({ state, strings, links, onLoadMore }: ResultsProps) {
  const common = { profileUrl: links.profileUrl, likesUrl: links.likesUrl, loginUrl: links.loginUrl, strings };
  if (!state.searched) {
    return (
      <p className="text-body-secondary" data-testid="search-cleared">
        {state.loading ? strings.loading : strings.cleared}
      </p>
    );
  }
  return (
    <div aria-busy={state.loading}>
      <p className="fw-semibold mb-3" data-testid="search-count" aria-live="polite">
        {state.numResultsText}
      </p>
      {state.results.length > 0 ? (
        <Grid cards={state.results} testId="search-results" {...common} />
      ) : (
        <EmptyState icon={SEARCH_ICON} title={strings.noResults} text={strings.noResultsHelp} testId="search-empty" />
      )}
      {state.hasMore && (
        <div className="text-center mb-4">
          <button
            type="button"
            className="btn btn-outline-primary"
            onClick={onLoadMore}
            disabled={state.loading}
            data-testid="search-load-more"
          >
            {state.loading ? strings.loading : strings.loadMore}
          </button>
        </div>
      )}
      {state.similar.length > 0 && (
        <section aria-labelledby="search-similar-title" data-testid="search-similar">
          <h2 className="h5 mb-1" id="search-similar-title">
            {strings.similarTitle}
          </h2>
          <p className="text-body-secondary mb-3" data-testid="search-similar-count">
            {state.numSimilarText}
          </p>
          <Grid cards={state.similar} testId="search-similar-results" {...common} />
        </section>
      )}
    </div>
  );
}
