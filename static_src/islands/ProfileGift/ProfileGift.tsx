/**
 * The profile page's "Send a gift" button (spec §2 profile view; props from
 * apps.chat.views.profile_gift_props, members only: visitors get the page's login-needed
 * modal). It opens the gift picker (the chat's catalogue, GET /api/gifts.php) in a dialog;
 * a chosen gift opens the conversation (POST /api/chat.php {profile}) and is sent like the
 * chat sends it (POST /api/message.php {conversation, client_id, gift}, no retries: it is
 * paid). A member without enough credits for a gift (before, or a 402 after) is sent to
 * the credits page with the chat's message; a free member past their conversations gets
 * the premium message. The sent gift links to the conversation.
 */
import { useCallback, useEffect, useRef, useState } from "react";

import { ApiError, get, post } from "../../lib/api";
import { Dialog } from "../../lib/LazyDialog";
import { GiftChoices, type GiftItem } from "../../lib/gifts";
import { appStore, useStore, type AppState } from "../../lib/store";

export interface ProfileGiftStrings {
  sendGift: string;
  /** "Send {name} a gift" */
  giftsTitle: string;
  loading: string;
  noGifts: string;
  noCredits: string;
  buyCredits: string;
  premiumRequired: string;
  getPremium: string;
  /** "Your {gift} is on its way to {name}." */
  sent: string;
  openChat: string;
  error: string;
  close: string;
}

export interface ProfileGiftProps {
  strings: ProfileGiftStrings;
  profileId: number;
  profileName: string;
  /** The member's credits when the page was made (the store's, once known, win). */
  credits: number;
  /** What a gift costs, and that as text ("3 credits"). */
  cost: number;
  costLabel: string;
  urls: { gifts: string; chat: string; message: string; credits: string; premium: string; conversation: string };
}

type Outcome =
  | { kind: "sent"; gift: string; conversation: number }
  | { kind: "credits" | "premium" | "error"; message: string }
  | null;

const selectCredits = (state: AppState) => {
  const credits = state.user?.credits;
  return typeof credits === "number" ? credits : null;
};

function newClientId(): string {
  const random = globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  return `gift-${random}`;
}

export function ProfileGift(props: ProfileGiftProps) {
  const { strings, urls } = props;
  const storeCredits = useStore(appStore, selectCredits);
  const credits = storeCredits ?? props.credits;
  const [open, setOpen] = useState(false);
  const [gifts, setGifts] = useState<GiftItem[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const outcomeRef = useRef<HTMLDivElement>(null);

  const tooPoor = credits < props.cost;

  useEffect(() => {
    if (!open || tooPoor || gifts !== null) return;
    let live = true;
    get<{ gifts: GiftItem[] }>(urls.gifts).then(
      (data) => live && setGifts(data.gifts ?? []),
      (err: unknown) => live && setOutcome({ kind: "error", message: err instanceof ApiError ? err.message : strings.error }),
    );
    return () => {
      live = false;
    };
  }, [open, tooPoor, gifts, urls.gifts, strings.error]);

  // The result is announced and focused, so keyboard users land on its link.
  useEffect(() => {
    if (outcome) outcomeRef.current?.focus();
  }, [outcome]);

  const send = useCallback(
    async (gift: GiftItem) => {
      setBusy(true);
      setOutcome(null);
      try {
        const chat = await post<{ conversation: number }>(urls.chat, { profile: props.profileId }, { retries: 0 });
        const answer = await post<{ credits: number }>(
          urls.message,
          { conversation: chat.conversation, client_id: newClientId(), gift: gift.id },
          { retries: 0 },
        );
        if (typeof answer.credits === "number") {
          appStore.set((state) => (state.user ? { user: { ...state.user, credits: answer.credits } } : {}));
        }
        setOutcome({ kind: "sent", gift: gift.name, conversation: chat.conversation });
      } catch (err) {
        if (err instanceof ApiError && err.code === "not_enough_credits") {
          setOutcome({ kind: "credits", message: strings.noCredits });
        } else if (err instanceof ApiError && err.code === "premium_required") {
          setOutcome({ kind: "premium", message: err.message || strings.premiumRequired });
        } else {
          setOutcome({ kind: "error", message: err instanceof ApiError ? err.message : strings.error });
        }
      } finally {
        setBusy(false);
      }
    },
    [urls.chat, urls.message, props.profileId, strings],
  );

  const close = useCallback(() => {
    setOpen(false);
    setOutcome(null);
  }, []);

  const shown: Outcome = tooPoor && !outcome ? { kind: "credits", message: strings.noCredits } : outcome;

  return (
    <>
      <button
        type="button"
        className="btn btn-outline-primary"
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
        data-testid="profile-gift"
      >
        {strings.sendGift}
      </button>
      <Dialog
        open={open}
        onClose={close}
        title={`${strings.giftsTitle.replace("{name}", props.profileName)} (${props.costLabel})`}
        closeLabel={strings.close}
        titleClassName="text-break"
        testId="profile-gifts"
      >
        {shown ? (
          <div ref={outcomeRef} tabIndex={-1} role={shown.kind === "sent" ? "status" : "alert"} data-testid="profile-gift-outcome">
            {shown.kind === "sent" ? (
              <>
                <p className="mb-2 text-break">
                  {strings.sent.replace("{gift}", shown.gift).replace("{name}", props.profileName)}
                </p>
                <a className="btn btn-primary" href={urls.conversation.replace("{id}", String(shown.conversation))} data-testid="profile-gift-chat">
                  {strings.openChat}
                </a>
              </>
            ) : shown.kind === "credits" ? (
              <>
                <p className="mb-2">{shown.message}</p>
                <a className="btn btn-warning" href={urls.credits} data-testid="profile-gift-credits">
                  {strings.buyCredits}
                </a>
              </>
            ) : shown.kind === "premium" ? (
              <>
                <p className="mb-2">{shown.message}</p>
                <a className="btn btn-warning" href={urls.premium} data-testid="profile-gift-premium">
                  {strings.getPremium}
                </a>
              </>
            ) : (
              <p className="text-danger mb-0">{shown.message}</p>
            )}
          </div>
        ) : gifts === null ? (
          <p className="text-body-secondary mb-0" role="status">
            {strings.loading}
          </p>
        ) : gifts.length === 0 ? (
          <p className="text-body-secondary mb-0">{strings.noGifts}</p>
        ) : (
          <div aria-busy={busy}>
            <GiftChoices gifts={gifts} onChoose={(gift) => void send(gift)} disabled={busy} />
          </div>
        )}
      </Dialog>
    </>
  );
}
