/**
 * What every profile card shows (search, match finder, swipe game; the likes pages render
 * the same from templates/profiles/partials/card_text.html): the name with the age kept
 * visible when the name is cut, the facts the site shows (computed by the server,
 * apps.profiles.cards), the profile's notes, the fictional-profile mark, and one
 * placeholder silhouette for profiles without a photo (lib/silhouette.tsx, on its own for
 * the chat's avatars). React escapes every text.
 */
import type { ImgHTMLAttributes, ReactNode } from "react";

import { Silhouette } from "./silhouette";
import type { MainImage } from "./store";

export { Silhouette };

export interface CardFact {
  name: string;
  text: string;
}

export interface CardNote {
  kind: "fictional" | "cam" | "partner" | string;
  text: string;
}

export interface FictionalLabel {
  icon: string;
  /** The site's word for one fictional profile (Site.fictional_singular). */
  label: string;
  warning: string;
}

/** The part of a card (apps.profiles.cards.profile_card) these components read. */
export interface CardText {
  name: string;
  /** null when the site does not show ages. */
  age: number | null;
  facts?: CardFact[];
  notes?: CardNote[];
  fictional?: FictionalLabel | null;
}

/** The part of a card CardPhoto reads. */
export interface CardImage {
  name: string;
  main_image: MainImage | null;
}

/**
 * The card's square photo (alt: the profile's name), or the silhouette with `noPhoto` as its
 * label. `img` passes on how the page uses it: the search loads it lazily, the swipe game's
 * card is dragged as a whole, never the image.
 */
export function CardPhoto({
  card,
  noPhoto,
  ...img
}: { card: CardImage; noPhoto: string } & Pick<ImgHTMLAttributes<HTMLImageElement>, "loading" | "draggable">) {
  const thumb = card.main_image?.thumb_filename;
  if (!thumb) return <Silhouette className="card-img-top w-100 h-auto" size={400} label={noPhoto} />;
  return <img className="card-img-top object-fit-cover" src={thumb} alt={card.name} width={400} height={400} {...img} />;
}

/** The fictional-profile icon; its accessible name is the site's label, its tooltip the warning. */
export function FictionalMark({ fictional, testId }: { fictional: FictionalLabel; testId?: string }) {
  return (
    <span className="profile-fictional ms-1" title={fictional.warning || fictional.label} data-testid={testId}>
      <span aria-hidden="true">{fictional.icon}</span>
      <span className="visually-hidden">{fictional.label}</span>
    </span>
  );
}

/** "Name, 34": the name is cut with an ellipsis when it is long, the age always stays. */
export function CardTitle({
  card,
  className = "",
  testPrefix,
  children,
}: {
  card: CardText;
  className?: string;
  testPrefix: string;
  children?: ReactNode;
}) {
  return (
    <p className={`card-name d-flex align-items-baseline mb-0 ${className}`.trim()}>
      <span className="text-truncate" data-testid={`${testPrefix}-name`}>
        {card.name}
      </span>
      {card.age !== null && (
        <span className="flex-shrink-0" data-testid={`${testPrefix}-age`}>{`, ${card.age}`}</span>
      )}
      {card.fictional && (
        <span className="flex-shrink-0">
          <FictionalMark fictional={card.fictional} testId={`${testPrefix}-fictional`} />
        </span>
      )}
      {children}
    </p>
  );
}

/** The facts (one line each, cut when long) and the notes under a card's name. */
export function CardFacts({ card, testPrefix }: { card: CardText; testPrefix: string }) {
  const facts = card.facts ?? [];
  const notes = card.notes ?? [];
  return (
    <>
      {facts.map((fact) => (
        <p
          key={fact.name}
          className="card-text small text-body-secondary text-truncate mb-0"
          title={fact.text}
          data-testid={`${testPrefix}-fact-${fact.name}`}
        >
          {fact.text}
        </p>
      ))}
      {notes.length > 0 && (
        <ul className="profile-notes list-unstyled d-flex flex-wrap gap-1 mt-1 mb-0" data-testid={`${testPrefix}-notes`}>
          {notes.map((note) => (
            <li key={note.kind} className={`badge profile-note profile-note-${note.kind}`} data-testid={`${testPrefix}-note-${note.kind}`}>
              {note.kind === "fictional" && card.fictional && <span aria-hidden="true">{`${card.fictional.icon} `}</span>}
              {note.text}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
