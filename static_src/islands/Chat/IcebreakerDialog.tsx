/**
 * The icebreaker modal (lib/Dialog.tsx, spec §2 modals): openers to choose from, opened by
 * "Break the ice" in the message area of an empty conversation. A module of its own, imported
 * by Conversation.tsx when the pointer or the focus reaches that button (at the latest on its
 * click), so an empty conversation does not load the dialog's code on opening; the gift and
 * report dialogs are ConversationDialogs.tsx.
 */
import type { RefObject } from "react";

import { Dialog } from "../../lib/Dialog";

export function IcebreakerDialog({
  open,
  onClose,
  onChoose,
  onOwn,
  openers,
  strings,
  returnFocus,
}: {
  open: boolean;
  onClose: () => void;
  /** An opener was chosen: its text goes into the input. */
  onChoose: (text: string) => void;
  /** "Write my own". */
  onOwn: () => void;
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
        <button type="button" className="btn btn-link" onClick={onOwn} data-testid="icebreaker-own">
          {strings.icebreakerOwn}
        </button>
      </div>
    </Dialog>
  );
}
