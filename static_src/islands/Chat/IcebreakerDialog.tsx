/**
 * The icebreaker (lib/Dialog.tsx): offered on opening an empty conversation, openers to
 * choose from (spec §2 chat screen). A module of its own, imported by Conversation.tsx
 * during the first render of an empty conversation only; the gift and report dialogs are
 * ConversationDialogs.tsx.
 */
import type { RefObject } from "react";

import { Dialog } from "../../lib/Dialog";

export function IcebreakerDialog({
  open,
  onClose,
  onChoose,
  openers,
  strings,
  returnFocus,
}: {
  open: boolean;
  onClose: () => void;
  /** An opener was chosen: its text goes into the input. */
  onChoose: (text: string) => void;
  /** The openers' texts, the name filled in. */
  openers: string[];
  strings: Record<string, string>;
  returnFocus: RefObject<HTMLElement | null>;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={strings.icebreakerTitle}
      closeLabel={strings.close}
      returnFocus={returnFocus}
      className="chat-modal"
      testId="chat-icebreaker"
    >
      <p>{strings.icebreakerBody}</p>
      <div className="d-grid gap-2">
        {openers.map((text) => (
          <button key={text} type="button" className="btn btn-outline-primary text-start" data-testid="icebreaker-opener" onClick={() => onChoose(text)}>
            {text}
          </button>
        ))}
        <button type="button" className="btn btn-link" onClick={onClose} data-testid="icebreaker-own">
          {strings.icebreakerOwn}
        </button>
      </div>
    </Dialog>
  );
}
