/**
 * The conversation's two dialogs (lib/Dialog.tsx): the icebreaker, offered on opening an
 * empty conversation, and the gift picker. A module of its own, imported by Conversation.tsx
 * only when one of them is needed (an empty conversation, or the pointer or focus reaching
 * the gift button), so the chat page does not carry the dialog's code for a conversation
 * that never opens one (docs/bench.md, "js").
 */
import { useEffect, useState, type RefObject } from "react";

import { ApiError, get } from "../../lib/api";
import { Dialog } from "../../lib/Dialog";
import { GiftChoices } from "../../lib/gifts";
import type { Gift } from "./types";

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

/** The gift picker: the gifts are fetched (GET `url`, /api/gifts.php) when it first opens. */
export function GiftsDialog({
  open,
  onClose,
  onChoose,
  onError,
  url,
  title,
  strings,
}: {
  open: boolean;
  onClose: () => void;
  onChoose: (gift: Gift) => void;
  /** The gifts could not be fetched: the message to show (the dialog is to close). */
  onError: (message: string) => void;
  url: string;
  title: string;
  strings: Record<string, string>;
}) {
  const [gifts, setGifts] = useState<Gift[] | null>(null);
  useEffect(() => {
    if (!open || gifts !== null) return;
    let live = true;
    get<{ gifts: Gift[] }>(url).then(
      (data) => live && setGifts(data.gifts ?? []),
      (err: unknown) => live && onError(err instanceof ApiError ? err.message : strings.error),
    );
    return () => {
      live = false;
    };
  }, [open, gifts, url, onError, strings.error]);

  return (
    <Dialog open={open} onClose={onClose} title={title} closeLabel={strings.close} className="chat-modal" testId="chat-gifts">
      {gifts === null ? (
        <p className="text-body-secondary mb-0" role="status">
          {strings.loading}
        </p>
      ) : gifts.length === 0 ? (
        <p className="text-body-secondary mb-0">{strings.noGifts}</p>
      ) : (
        <GiftChoices gifts={gifts} onChoose={onChoose} />
      )}
    </Dialog>
  );
}
