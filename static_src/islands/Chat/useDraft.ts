/**
 * The conversation's draft (docs/chat.md): what is in the message box is kept per conversation
 * in sessionStorage until it is sent, so a reload, the list and back, or a failed send loses
 * nothing typed. A hook of its own so that the box, the icebreaker and a failed send all write
 * the draft through one setter that stores it.
 */
import { useCallback, useState } from "./react";

const DRAFT_KEY = "chat-draft-";

/** The stored draft of `conversation` ("" without one, or where storage is refused). */
function draftLoad(conversation: number): string {
  try {
    return sessionStorage.getItem(DRAFT_KEY + conversation) ?? "";
  } catch {
    return "";
  }
}

function draftSave(conversation: number, text: string): void {
  try {
    if (text) sessionStorage.setItem(DRAFT_KEY + conversation, text);
    else sessionStorage.removeItem(DRAFT_KEY + conversation);
  } catch {
    // Private mode: the draft lives as long as the page.
  }
}

export type SetDraft = (next: string | ((previous: string) => string)) => void;

/** The draft of `conversation` (the stored one at first) and its setter, which stores it
 * (an empty draft removes it). */
export function useDraft(conversation: number): [string, SetDraft] {
  const [draft, setDraftState] = useState(() => draftLoad(conversation));
  const setDraft = useCallback<SetDraft>(
    (next) => {
      setDraftState((previous) => {
        const value = typeof next === "function" ? next(previous) : next;
        draftSave(conversation, value);
        return value;
      });
    },
    [conversation],
  );
  return [draft, setDraft];
}
