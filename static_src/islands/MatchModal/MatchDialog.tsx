/**
 * The match modal's dialog (islands/MatchModal/MatchModal.tsx imports this module when it has a
 * profile to show): title, photo (or the silhouette the cards show without one), name, age,
 * city and a "View profile" button. A click anywhere closes it (spec §2); the photo and the
 * button also call `onSelect`. Focus starts on the button.
 */
import { useRef } from "react";

import { Dialog } from "../../lib/Dialog";
import { Silhouette } from "../../lib/silhouette";
import type { LikeCard, MatchModalStrings } from "./MatchModal";

export function MatchDialog({
  profile,
  open,
  onClose,
  onSelect: select,
  strings,
}: {
  profile: LikeCard;
  open: boolean;
  onClose: () => void;
  onSelect: () => void;
  strings: MatchModalStrings;
}) {
  const buttonRef = useRef<HTMLButtonElement>(null);
  // The large picture, not the lists' thumbnail: the circle is wider than the thumbnail's
  // pixels on a 2x or 3x screen (docs/decisions.md, "The match modal's photo").
  const photo = profile.main_image?.match_filename || profile.main_image?.thumb_filename;
  const nameAge = profile.age ? `${profile.name}, ${profile.age}` : profile.name;

  // Closes on any click (spec §2); the photo and the button also open the profile.
  return (
    <Dialog
      open={open}
      onClose={onClose}
      closeOnAnyClick
      title={strings.title}
      closeLabel={strings.close}
      initialFocus={buttonRef}
      size="sm"
      className="match-modal text-center"
      headerClassName="border-0 pb-0"
      titleClassName="w-100"
      footerClassName="border-0 justify-content-center pt-0"
      testId="match-modal"
      footer={
        <button type="button" className="btn btn-primary" data-testid="match-modal-view" ref={buttonRef} onClick={select}>
          {strings.viewProfile}
        </button>
      }
    >
      <button
        type="button"
        className="btn p-0 border-0 d-block w-75 mx-auto mb-3"
        data-testid="match-modal-photo"
        aria-label={strings.viewProfile}
        onClick={select}
      >
        <span className="ratio ratio-1x1 d-block">
          {photo ? (
            <img
              className="rounded-circle object-fit-cover"
              src={photo}
              alt={profile.name}
              data-testid="match-modal-img"
            />
          ) : (
            <Silhouette className="rounded-circle match-modal-silhouette" size={160} testId="match-modal-silhouette" />
          )}
        </span>
      </button>
      <p className="fw-semibold mb-0" data-testid="match-modal-name">
        {nameAge}
      </p>
      {profile.city ? <p className="text-body-secondary mb-0">{profile.city}</p> : null}
    </Dialog>
  );
}
