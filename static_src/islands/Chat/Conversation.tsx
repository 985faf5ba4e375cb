/**
 * One conversation (spec §2 chat screen, §4, §8): the in-chat top bar (the other profile,
 * back to the list, the coins badge), the messages, the typing indicator, and the footer
 * (text with the site's length, a photo, a gift). An empty conversation shows "Break the ice"
 * in its message area, which opens the icebreaker modal with openers to choose from. Not
 * enough credits (402) and premium only (403) show their alerts and keep the text in the input.
 *
 * Conversation is the view; what it shows comes from hooks of their own, one concern each
 * (docs/decisions.md, "The conversation as hooks"): useConversationTransport (the messages:
 * history, live events, polling, the outbox), useReadMarks, useTyping, useDraft,
 * useScrollPinning and useAnnouncement (the live region). Its top bar (Header) and a
 * message's bubble (Bubble) are small components here. The dialogs are modules of their own,
 * imported on first need, when the pointer or the focus reaches the button that opens them (at
 * the latest on the click, which then opens the dialog once the module is there): the
 * icebreaker (IcebreakerDialog.tsx) from "Break the ice", the gift and report dialogs
 * (ConversationDialogs.tsx) from their buttons. So a conversation, empty or not, loads
 * lib/Dialog.tsx only when a dialog is about to open (docs/bench.md, "js").
 */
import type { FormEvent, KeyboardEvent } from "react";

import { ApiError } from "../../lib/api";
import { GiftPicture } from "../../lib/gifts";
import { lazyModule, useLazyModule } from "../../lib/lazyModule";
import { newClientId } from "../../lib/outbox";
import { useRealtime } from "../../lib/realtimeLater";
import { appStore, useStore, type AppState } from "../../lib/store";
import { Avatar } from "./ChatList";
import { fill, messageTime, tickState, withId } from "./format";
import { useCallback, useRef, useState } from "./react";
import type { ReportTarget } from "./ConversationDialogs";
import { API, type ChatProfile, type ChatProps, type Gift, type History, type ShownMessage } from "./types";
import { useAnnouncement } from "./useAnnouncement";
import { useConversationTransport, type SendItem } from "./useConversationTransport";
import { useDraft } from "./useDraft";
import { useReadMarks } from "./useReadMarks";
import { useScrollPinning } from "./useScrollPinning";
import { useTyping } from "./useTyping";
import { Icon } from "./Icon";

/** The "stay safe" note shows in conversations with fewer messages than this. */
export const SAFETY_TIP_UNTIL = 6;
const SAFETY_TIP_KEY = "chat-safety-tip-dismissed";
/** Dismissed notes are remembered for this many conversations (the newest). */
const SAFETY_TIP_KEEP = 200;

function safetyTipList(): number[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(SAFETY_TIP_KEY) ?? "[]");
    return Array.isArray(value) ? value.filter((id): id is number => typeof id === "number") : [];
  } catch {
    return [];
  }
}

function safetyTipDismissed(conversationId: number): boolean {
  return safetyTipList().includes(conversationId);
}

function safetyTipDismiss(conversationId: number): void {
  try {
    const list = [...safetyTipList().filter((id) => id !== conversationId), conversationId].slice(-SAFETY_TIP_KEEP);
    localStorage.setItem(SAFETY_TIP_KEY, JSON.stringify(list));
  } catch {
    // Storage refused (private mode): dismissed for this page only.
  }
}

/** The counter shows from this share of the maximum length. */
export const COUNTER_FROM = 0.8;

/** The gift and report dialogs, and the icebreaker: imported when first needed. */
const dialogsLazy = lazyModule(() => import("./ConversationDialogs"));
export const icebreakerLazy = lazyModule(() => import("./IcebreakerDialog"));
export const loadDialogs = dialogsLazy.load;
/** Through the object, so that a test sees every import asked for. */
const loadIcebreaker = () => void icebreakerLazy.load();

const selectCredits = (state: AppState) => {
  const credits = state.user?.credits;
  return typeof credits === "number" ? credits : null;
};

function Ticks({ message, strings, icons }: { message: ShownMessage; strings: Record<string, string>; icons: string }) {
  const state = tickState(message);
  const label = strings[state]; // the strings sending, queued, sent, delivered, read
  return (
    <span className={`chat-ticks chat-ticks-${state}`} data-testid="message-ticks" data-state={state} title={label} role="img" aria-label={label}>
      {state === "sending" || state === "queued" ? (
        <Icon sprite={icons} name="clock" size={12} />
      ) : (
        <Icon sprite={icons} name={state === "sent" ? "check" : "checks"} size={16} height={13} />
      )}
    </span>
  );
}

function Bubble({
  message,
  strings,
  locale,
  icons,
  onReport,
}: {
  message: ShownMessage;
  strings: Record<string, string>;
  locale: string;
  /** The icons' sprite (urls.icons). */
  icons: string;
  /** Report this message (incoming messages only). */
  onReport?: (message: ShownMessage) => void;
}) {
  return (
    <li
      className={`chat-message ${message.mine ? "chat-message-mine" : "chat-message-theirs"} chat-message-${message.kind}`}
      data-testid="message"
      data-mine={message.mine ? "true" : "false"}
      data-kind={message.kind}
    >
      <div className="chat-bubble">
        {message.kind === "photo" && (message.previewUrl || message.photo) && (
          <a
            className="chat-photo"
            href={message.photo?.filename ?? message.previewUrl}
            target="_blank"
            rel="noopener noreferrer"
            data-testid="message-photo"
          >
            <img
              src={message.previewUrl ?? message.photo?.thumb_filename}
              alt={strings.photo}
              width={message.photo?.width || undefined}
              height={message.photo?.height || undefined}
            />
          </a>
        )}
        {message.kind === "gift" && message.gift && (
          <div className="chat-gift" data-testid="message-gift">
            <GiftPicture gift={message.gift} size={64} />
            <span className="chat-gift-name" aria-hidden="true">
              {message.gift.name}
            </span>
          </div>
        )}
        {message.text && (
          <p className="chat-text mb-0" data-testid="message-text">
            {message.text}
          </p>
        )}
        <span className="chat-meta">
          <time dateTime={message.created ?? undefined}>{messageTime(message.created, locale)}</time>
          {message.mine && <Ticks message={message} strings={strings} icons={icons} />}
        </span>
        {message.safety_notice && !message.mine && (
          <p className="chat-safety-notice small mb-0 mt-1" data-testid="message-safety-notice">
            {strings.safetyNotice}
          </p>
        )}
      </div>
      {onReport && (
        <button
          type="button"
          className="btn btn-sm btn-outline-secondary chat-report-link"
          aria-label={strings.reportMessage}
          title={strings.reportMessage}
          onPointerEnter={loadDialogs}
          onFocus={loadDialogs}
          onClick={() => onReport(message)}
          data-testid="message-report"
        >
          <Icon sprite={icons} name="flag-fill" size={12} />
          <span>{strings.report}</span>
        </button>
      )}
    </li>
  );
}

interface HeaderProps extends Pick<ConversationProps, "credits" | "strings" | "urls" | "onBack"> {
  profile: ChatProfile;
  /** The other is typing (the line under the name says it). */
  typing: boolean;
  /** Report the conversation. */
  onReport: () => void;
}

/** The top bar: back to the list, the other profile (photo, name, and "… is typing" or
 * "fictional"), and the coins badge linking to the credits (the store's count, kept current by
 * the answers and the live events, else the page's). */
function Header({ profile, typing, credits: pageCredits, strings, urls, onBack, onReport }: HeaderProps) {
  const credits = useStore(appStore, selectCredits) ?? pageCredits;
  return (
    <header className="chat-header d-flex align-items-center gap-2 px-2 py-2">
      <a
        className="btn btn-link chat-back px-2"
        href={urls.chats}
        aria-label={strings.back}
        title={strings.back}
        data-testid="chat-back"
        onClick={(event) => {
          if (!onBack || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
          event.preventDefault();
          onBack();
        }}
      >
        <Icon sprite={urls.icons} name="back" size={20} />
      </a>
      <a className="chat-header-profile d-flex align-items-center gap-2 text-reset text-decoration-none flex-grow-1 min-w-0" href={withId(urls.profile, profile.id)} title={strings.viewProfile}>
        <Avatar src={profile.main_image?.thumb_filename} size={40} />
        <span className="min-w-0">
          <span className="chat-header-name d-block text-truncate fw-semibold" data-testid="chat-header-name">
            {profile.name}
          </span>
          {typing ? (
            <span className="chat-header-sub d-block small text-primary" aria-hidden="true" data-testid="chat-typing">
              {fill(strings.typing, { name: profile.name })}
            </span>
          ) : (
            profile.is_fictional && <span className="chat-header-sub d-block small text-body-secondary">{strings.fictional}</span>
          )}
        </span>
      </a>
      <button
        type="button"
        className="btn btn-link chat-tool chat-report-conversation px-2"
        aria-label={fill(strings.reportConversation, { name: profile.name })}
        title={fill(strings.reportConversation, { name: profile.name })}
        onPointerEnter={loadDialogs}
        onFocus={loadDialogs}
        onClick={onReport}
        data-testid="chat-report-conversation"
      >
        <Icon sprite={urls.icons} name="flag" size={18} />
      </button>
      <a
        className={`chat-coins badge rounded-pill ${credits <= 0 ? "text-bg-danger" : "text-bg-light"}`}
        href={urls.credits}
        title={strings.credits}
        aria-label={`${strings.credits}: ${credits}`}
        data-testid="chat-credits"
      >
        <Icon sprite={urls.icons} name="coins" size={14} className="me-1" />
        <span data-testid="chat-credits-count">{credits}</span>
      </a>
    </header>
  );
}

type Alert = { kind: "credits" | "premium" | "error"; message: string } | null;

export interface ConversationProps extends Omit<ChatProps, "view" | "chats" | "history"> {
  history: History;
  /** The back arrow's plain click (phones): the list in place instead of loading /chats. */
  onBack?: () => void;
}

export function Conversation(props: ConversationProps) {
  const { strings, urls, messageLength, costLabels, openers } = props;
  const conversationId = props.history.conversation.id;
  const profile: ChatProfile = props.history.conversation.profile;
  const realtime = useRealtime();

  const [draft, setDraft] = useDraft(conversationId);
  const [alert, setAlert] = useState<Alert>(null);
  // The icebreaker modal, opened from "Break the ice" in an empty conversation.
  const [icebreaker, setIcebreaker] = useState(() => {
    if (props.openGifts) void loadDialogs();
    return false;
  });
  // Where focus goes when it closes: back to "Break the ice", or to the input once an opener
  // is chosen or the member writes their own.
  const icebreakerReturn = useRef<HTMLElement | null>(null);
  const [giftsOpen, setGiftsOpen] = useState(Boolean(props.openGifts));
  const [report, setReport] = useState<ReportTarget | null>(null);
  const [reportOpen, setReportOpen] = useState(false);
  const [blockedHere, setBlockedHere] = useState(false);
  // "Stay safe" in a new conversation (few messages, none hidden), until dismissed for it.
  const [safetyTip, setSafetyTip] = useState(
    () => props.history.messages.length < SAFETY_TIP_UNTIL && !props.history.has_older && !safetyTipDismissed(conversationId),
  );
  const dismissSafetyTip = () => {
    safetyTipDismiss(conversationId);
    setSafetyTip(false);
  };
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);

  const markRead = useReadMarks(conversationId, realtime);
  const [typingUntil, stopTyping, typed] = useTyping(realtime, conversationId);
  const [messages, hasOlder, closedByEvent, offline, send] = useConversationTransport(props.history, realtime, {
    unread: markRead,
    incoming: stopTyping,
    failed: (item, err) => {
      // Nothing typed is lost: the text goes back into the input.
      const text = item.text;
      if (text) setDraft((current) => (current ? `${text}\n${current}` : text));
      if (!err) return;
      const code = err instanceof ApiError ? err.code : null;
      if (code === "not_enough_credits") setAlert({ kind: "credits", message: strings.noCredits });
      else if (code === "premium_required") setAlert({ kind: "premium", message: strings.premiumRequired });
      else setAlert({ kind: "error", message: err instanceof ApiError ? err.message : strings.error });
    },
  });
  // Blocked from the report dialog: closed at once, also before (or without) the live event.
  const closed = closedByEvent || blockedHere;
  const [listRef, onListScroll, pin] = useScrollPinning<HTMLDivElement>([messages, typingUntil], hasOlder);
  const announcement = useAnnouncement(messages, strings);
  // "Break the ice" while the conversation has no message (none hidden either) and is open.
  const offerIcebreaker = messages.length === 0 && !hasOlder && openers.length > 0 && !closed;

  const queue = (item: SendItem, shown?: Partial<ShownMessage>) => {
    pin();
    setAlert(null);
    setIcebreaker(false);
    send(item, shown);
  };

  const sendText = () => {
    const text = draft.trim();
    if (!text || closed) return;
    if (text.length > messageLength) return;
    setDraft("");
    queue({ clientId: newClientId(), kind: "text", text }, { text });
    inputRef.current?.focus();
  };

  const sendPhoto = (file: File) => queue({ clientId: newClientId(), kind: "photo", photo: file });

  const sendGift = (gift: Gift) => {
    setGiftsOpen(false);
    queue({ clientId: newClientId(), kind: "gift", gift: gift.id }, { gift });
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    sendText();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      sendText();
    }
  };

  const onInput = (value: string) => {
    setDraft(value);
    typed(value);
  };

  // Stable: the gift dialog loads the gifts again when it changes.
  const giftsFailed = useCallback((message: string) => {
    setGiftsOpen(false);
    setAlert({ kind: "error", message });
  }, []);
  const icebreakerModule = useLazyModule(icebreakerLazy, icebreaker && !closed);
  const dialogs = useLazyModule(dialogsLazy, (giftsOpen && !closed) || reportOpen);
  const reportMessage = useCallback((message: ShownMessage) => {
    setReport({ message: message.id, excerpt: message.text ?? "" });
    setReportOpen(true);
  }, []);

  const length = draft.length;
  const showCounter = length >= Math.floor(messageLength * COUNTER_FROM);
  const typing = typingUntil > Date.now();

  return (
    <section className="chat-conversation" data-testid="chat-conversation" data-conversation={conversationId}>
      <Header
        {...props}
        profile={profile}
        typing={typing}
        onReport={() => {
          setReport({ conversation: conversationId });
          setReportOpen(true);
        }}
      />

      <div className="visually-hidden" role="status" data-testid="chat-typing-status">
        {typing ? fill(strings.typing, { name: profile.name }) : ""}
      </div>
      <div className="visually-hidden" aria-live="polite" aria-atomic="true" data-testid="chat-announce">
        {announcement.text && <span key={announcement.key}>{announcement.text}</span>}
      </div>

      <div className="chat-messages" ref={listRef} onScroll={onListScroll} data-testid="chat-messages">
        {hasOlder && (
          <p className="chat-older text-center small text-body-secondary my-2" data-testid="chat-older-hidden">
            {strings.olderHidden}
          </p>
        )}
        {safetyTip && (
          <div className="alert alert-info chat-safety-tip alert-dismissible small m-2 mb-0 py-2" role="note" data-testid="chat-safety-tip">
            <strong className="d-block">{strings.safetyTipTitle}</strong>
            {strings.safetyTip}
            <button type="button" className="btn-close py-2" aria-label={strings.safetyTipDismiss} onClick={dismissSafetyTip} data-testid="chat-safety-tip-dismiss" />
          </div>
        )}
        {offerIcebreaker && (
          <div className="chat-icebreaker-offer text-center px-3 py-4" data-testid="chat-icebreaker-offer">
            <button
              type="button"
              className="btn btn-primary"
              aria-haspopup="dialog"
              // The pointer or the focus on it: the dialog's code loads before the click.
              onPointerEnter={loadIcebreaker}
              onFocus={loadIcebreaker}
              onClick={(event) => {
                icebreakerReturn.current = event.currentTarget;
                setIcebreaker(true);
              }}
              data-testid="chat-icebreaker-open"
            >
              <Icon sprite={urls.icons} name="lightbulb" size={18} className="me-2" />
              {strings.icebreakerTitle}
            </button>
          </div>
        )}
        <ol className="list-unstyled mb-0 px-2 py-2">
          {messages.map((message) => (
            <Bubble
              key={message.client_id && message.mine ? message.client_id : `id-${message.id}`}
              message={message}
              strings={strings}
              locale={props.locale}
              icons={urls.icons}
              onReport={!message.mine && message.id > 0 && !message.local ? reportMessage : undefined}
            />
          ))}
        </ol>
        {typing && (
          <div className="chat-typing-dots px-3 pb-2" aria-hidden="true">
            <span />
            <span />
            <span />
          </div>
        )}
      </div>

      <div className="chat-footer">
        {closed && (
          <div className="alert alert-secondary m-2 mb-0 py-2" role="status" data-testid="chat-closed">
            {strings.closed}
          </div>
        )}
        {offline && !closed && (
          <div className="alert alert-info m-2 mb-0 py-2 small" role="status" data-testid="chat-offline">
            {strings.offline}
          </div>
        )}
        {alert && (
          <div
            className={`alert ${alert.kind === "error" ? "alert-danger" : "alert-warning"} alert-dismissible m-2 mb-0 py-2`}
            role="alert"
            data-testid={alert.kind === "credits" ? "chat-credit-alert" : alert.kind === "premium" ? "chat-premium-alert" : "chat-error-alert"}
          >
            <span>{alert.message}</span>
            {alert.kind === "credits" && (
              <a className="alert-link ms-2" href={urls.credits} data-testid="chat-credit-link">
                {strings.buyCredits}
              </a>
            )}
            {alert.kind === "premium" && (
              <a className="alert-link ms-2" href={urls.premium} data-testid="chat-premium-link">
                {strings.getPremium}
              </a>
            )}
            <button type="button" className="btn-close py-2" aria-label={strings.close} onClick={() => setAlert(null)} />
          </div>
        )}
        <form className="chat-compose d-flex align-items-end gap-1 p-2" onSubmit={onSubmit} data-testid="chat-form">
          <button
            type="button"
            className="btn btn-link chat-tool"
            title={`${strings.sendPhoto} (${costLabels.photo})`}
            aria-label={`${strings.sendPhoto} (${costLabels.photo})`}
            disabled={closed}
            onClick={() => fileRef.current?.click()}
            data-testid="chat-photo-button"
          >
            <Icon sprite={urls.icons} name="photo" size={22} />
          </button>
          <input
            ref={fileRef}
            type="file"
            accept="image/jpeg,image/png,image/webp,image/gif"
            hidden
            data-testid="chat-photo-input"
            onChange={(event) => {
              const file = event.target.files?.[0];
              event.target.value = "";
              if (file) sendPhoto(file);
            }}
          />
          <button
            type="button"
            className="btn btn-link chat-tool"
            title={`${strings.sendGift} (${costLabels.gift})`}
            aria-label={`${strings.sendGift} (${costLabels.gift})`}
            disabled={closed}
            // The pointer or the focus on it: the dialog's code loads before the click.
            onPointerEnter={loadDialogs}
            onFocus={loadDialogs}
            onClick={() => setGiftsOpen(true)}
            data-testid="chat-gift-button"
          >
            <Icon sprite={urls.icons} name="gift" size={22} />
          </button>
          <div className="flex-grow-1 position-relative">
            <label className="visually-hidden" htmlFor={`chat-input-${conversationId}`}>
              {strings.messageLabel}
            </label>
            <textarea
              ref={inputRef}
              id={`chat-input-${conversationId}`}
              className="form-control chat-input"
              rows={1}
              maxLength={messageLength}
              placeholder={strings.placeholder}
              value={draft}
              disabled={closed}
              enterKeyHint="send"
              onChange={(event) => onInput(event.target.value)}
              onKeyDown={onKeyDown}
              data-testid="chat-input"
            />
            {showCounter && (
              <span className={`chat-counter small ${length >= messageLength ? "text-danger" : "text-body-secondary"}`} data-testid="chat-counter">
                {fill(strings.counter, { count: length, max: messageLength })}
              </span>
            )}
          </div>
          <button
            type="submit"
            className="btn btn-primary chat-send"
            disabled={closed || !draft.trim()}
            title={`${strings.send} (${costLabels.text})`}
            aria-label={`${strings.send} (${costLabels.text})`}
            data-testid="chat-send"
          >
            <Icon sprite={urls.icons} name="send" size={18} />
          </button>
        </form>
      </div>

      {icebreakerModule && (
        <icebreakerModule.IcebreakerDialog
          open={icebreaker && !closed}
          onClose={() => setIcebreaker(false)}
          onChoose={(text) => {
            setDraft(text);
            icebreakerReturn.current = inputRef.current; // on to the input, the opener in it
            setIcebreaker(false);
          }}
          onOwn={() => {
            icebreakerReturn.current = inputRef.current;
            setIcebreaker(false);
          }}
          openers={openers.map((opener) => fill(opener, { name: profile.name }))}
          strings={strings}
          returnFocus={icebreakerReturn}
        />
      )}
      {dialogs && (
        <>
          <dialogs.GiftsDialog
            open={giftsOpen && !closed}
            onClose={() => setGiftsOpen(false)}
            onChoose={sendGift}
            onError={giftsFailed}
            url={API.gifts}
            title={`${strings.giftsTitle} (${costLabels.gift})`}
            strings={strings}
          />
          <dialogs.ReportDialog
            open={reportOpen}
            onClose={() => setReportOpen(false)}
            onBlocked={() => setBlockedHere(true)}
            target={report}
            name={profile.name}
            reasons={props.reportReasons ?? []}
            strings={strings}
          />
        </>
      )}
    </section>
  );
}
