/**
 * The conversation's dialogs (lib/Dialog.tsx) that open on the member's action: the gift
 * picker and the report of a message or the conversation. A module of its own, imported by
 * Conversation.tsx only when one of them is needed (the pointer or focus reaching the gift
 * or report button, at the latest its click, or a page opened with the gifts), so the chat
 * page does not carry their code for a conversation that never opens one (docs/bench.md,
 * "js"). The icebreaker modal, offered by an empty conversation, is IcebreakerDialog.tsx.
 */
import { useEffect, useId, useState, type FormEvent } from "react";

import { ApiError, get, post } from "../../lib/api";
import { Dialog } from "../../lib/Dialog";
import { GiftChoices } from "../../lib/gifts";
import { fill } from "./format";
import { API, type Gift } from "./types";

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

/** What a report is about: one incoming message (its text shown as a reminder), or the
 * whole conversation. */
export type ReportTarget = { message: number; excerpt: string } | { conversation: number };

/**
 * Report a message or the conversation (POST /api/report.php): a reason (the complaint
 * reasons), an optional text and "also block". On success the dialog says thank you; a
 * block closes the conversation through the live event the block sends.
 */
export function ReportDialog({
  open,
  onClose,
  onBlocked,
  target,
  name,
  reasons,
  strings,
}: {
  open: boolean;
  onClose: () => void;
  /** The member also blocked the other: the conversation is closed. */
  onBlocked: () => void;
  target: ReportTarget | null;
  /** The other member's name. */
  name: string;
  /** The complaint reasons: [value, label]. */
  reasons: [string, string][];
  strings: Record<string, string>;
}) {
  const id = useId();
  const [reason, setReason] = useState("");
  const [text, setText] = useState("");
  const [block, setBlock] = useState(false);
  const [sending, setSending] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // A new report starts empty.
  useEffect(() => {
    if (!open) return;
    setReason("");
    setText("");
    setBlock(false);
    setSending(false);
    setDone(false);
    setError(null);
  }, [open, target]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!target || sending) return;
    if (!reason) {
      setError(strings.reportChooseReason);
      return;
    }
    setSending(true);
    setError(null);
    try {
      const about = "message" in target ? { message: target.message } : { conversation: target.conversation };
      const answer = await post<{ blocked: boolean }>(API.report, { ...about, reason, text, block });
      setDone(true);
      if (answer.blocked) onBlocked();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : strings.error);
    } finally {
      setSending(false);
    }
  };

  const title = target && "message" in target ? strings.reportMessage : fill(strings.reportConversation, { name });
  return (
    <Dialog open={open} onClose={onClose} title={title} closeLabel={strings.close} className="chat-modal" testId="chat-report">
      {done ? (
        <>
          <p role="status" data-testid="chat-report-done">
            {strings.reportDone}
          </p>
          <button type="button" className="btn btn-primary" onClick={onClose} data-testid="chat-report-close">
            {strings.close}
          </button>
        </>
      ) : (
        <form onSubmit={onSubmit} noValidate data-testid="chat-report-form">
          {target && "message" in target && target.excerpt && (
            <blockquote className="chat-report-excerpt border-start ps-2 text-body-secondary small" data-testid="chat-report-excerpt">
              {target.excerpt}
            </blockquote>
          )}
          <fieldset className="mb-3">
            <legend className="fs-6 fw-semibold">{strings.reportReason}</legend>
            {reasons.map(([value, label]) => (
              <div className="form-check" key={value}>
                <input
                  className="form-check-input"
                  type="radio"
                  name={`${id}-reason`}
                  id={`${id}-reason-${value}`}
                  value={value}
                  checked={reason === value}
                  onChange={() => setReason(value)}
                  data-testid={`chat-report-reason-${value}`}
                />
                <label className="form-check-label" htmlFor={`${id}-reason-${value}`}>
                  {label}
                </label>
              </div>
            ))}
          </fieldset>
          <div className="mb-3">
            <label className="form-label" htmlFor={`${id}-text`}>
              {strings.reportText}
            </label>
            <textarea
              id={`${id}-text`}
              className="form-control"
              rows={3}
              maxLength={5000}
              value={text}
              onChange={(event) => setText(event.target.value)}
              data-testid="chat-report-text"
            />
          </div>
          <div className="form-check mb-3">
            <input
              className="form-check-input"
              type="checkbox"
              id={`${id}-block`}
              checked={block}
              onChange={(event) => setBlock(event.target.checked)}
              data-testid="chat-report-block"
            />
            <label className="form-check-label" htmlFor={`${id}-block`}>
              {fill(strings.reportBlock, { name })}
            </label>
          </div>
          {error && (
            <div className="alert alert-danger py-2" role="alert" data-testid="chat-report-error">
              {error}
            </div>
          )}
          <div className="d-flex gap-2 justify-content-end">
            <button type="button" className="btn btn-outline-secondary" onClick={onClose}>
              {strings.cancel}
            </button>
            <button type="submit" className="btn btn-danger" disabled={sending} data-testid="chat-report-send">
              {sending ? strings.sending : strings.reportSend}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
