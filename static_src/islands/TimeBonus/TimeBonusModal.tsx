/**
 * The time-bonus modal's dialog (spec §4 "Time-bonus modal"): the discount, the countdown and a
 * link to the credits page. islands/TimeBonus/TimeBonus.tsx imports this module when the modal
 * is to open and passes its texts filled in.
 */
import { Dialog } from "../../lib/Dialog";

export function TimeBonusModal({
  open,
  onClose,
  title,
  body,
  link,
  closeLabel,
  creditsUrl,
  remaining,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  body: string;
  link: string;
  closeLabel: string;
  creditsUrl: string;
  /** The countdown, HH:MM:SS. */
  remaining: string;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={title}
      closeLabel={closeLabel}
      closeTestId="time-bonus-modal-close"
      className="time-bonus-modal"
      bodyClassName="text-center"
      footerClassName="justify-content-center"
      testId="time-bonus-modal"
      footer={
        <a className="btn btn-primary btn-lg" href={creditsUrl} data-testid="time-bonus-modal-link">
          {link}
        </a>
      }
    >
      <p>{body}</p>
      <p className="time-bonus-modal-time mb-0" data-testid="time-bonus-modal-time">
        {remaining}
      </p>
    </Dialog>
  );
}
