import type { SearchState } from "./useSearch";
import type { ProfileCard, SearchStrings } from "./types";

function Avatar({ label }: { label: string }) {
  return (
    <div className="card-img-top ratio ratio-1x1 bg-secondary-subtle text-secondary" role="img" aria-label={label}>
      <svg className="p-4" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        <path
          fill="currentColor"
          d="M12 12a5 5 0 1 0 0-10 5 5 0 0 0 0 10Zm0 2c-4.4 0-9 2.2-9 5.5V22h18v-2.5c0-3.3-4.6-5.5-9-5.5Z"
        />
      </svg>
    </div>
  );
}

export function Card({
  card,
  profileUrl,
  strings,
  fictionalIcon,
}: {
  card: ProfileCard;
  profileUrl: string;
  strings: SearchStrings;
  fictionalIcon: string;
}) {
  const thumb = card.main_image?.thumb_filename;
  return (
    <li className="col">
      <a
        className="card h-100 text-decoration-none text-body search-card"
        href={profileUrl.replace("{id}", String(card.id))}
        data-testid="search-card"
      >
        {thumb ? (
          <img
            className="card-img-top object-fit-cover"
            src={thumb}
            alt={card.name}
            width={400}
            height={400}
            loading="lazy"
          />
        ) : (
          <Avatar label={strings.noPhoto} />
        )}
        <div className="card-body p-2 p-sm-3">
          <p className="card-title fw-semibold mb-0 text-truncate">
            <span data-testid="search-card-name">{card.name}</span>
            {card.age !== null && `, ${card.age}`}
            {card.is_fictional && (
              <span className="ms-1 text-secondary" title={strings.fictional} data-testid="search-card-fictional">
                <span aria-hidden="true">{fictionalIcon}</span>
                <span className="visually-hidden">{strings.fictional}</span>
              </span>
            )}
          </p>
          {card.city && <p className="card-text small text-body-secondary text-truncate mb-0">{card.city}</p>}
        </div>
      </a>
    </li>
  );
}

function Grid({ cards, testId, ...rest }: { cards: ProfileCard[]; testId: string; profileUrl: string; strings: SearchStrings; fictionalIcon: string }) {
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
  profileUrl: string;
  fictionalIcon: string;
  onLoadMore: () => void;
}

/** The count, the cards, "Load more" and the similar results with their own count. */
export function Results({ state, strings, profileUrl, fictionalIcon, onLoadMore }: ResultsProps) {
  const common = { profileUrl, strings, fictionalIcon };
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
        <p className="text-body-secondary" data-testid="search-empty">
          {strings.noResults}
        </p>
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
