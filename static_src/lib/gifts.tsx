/**
 * Gifts (GET /api/gifts.php, apps.chat.selectors.gifts_offered): their picture and the
 * picker's choices, shared by the chat and the profile page's gift button. A gift shows
 * as its picture (the default gifts ship SVG files, so no emoji font is needed), named by
 * its translated name; only an operator's gift without a picture falls back to its emoji.
 */
export interface GiftItem {
  id: number;
  name: string;
  emoji: string;
  image: string | null;
}

export function GiftPicture({ gift, size }: { gift: Pick<GiftItem, "name" | "emoji" | "image">; size: number }) {
  if (gift.image) {
    return <img className="gift-picture d-block mx-auto" src={gift.image} alt={gift.name} width={size} height={size} />;
  }
  return (
    <span className="chat-gift-emoji" role="img" aria-label={gift.name}>
      {gift.emoji}
    </span>
  );
}

/** The picker's grid: one button per gift, named by the gift. */
export function GiftChoices({
  gifts,
  onChoose,
  disabled = false,
}: {
  gifts: GiftItem[];
  onChoose: (gift: GiftItem) => void;
  disabled?: boolean;
}) {
  return (
    <div className="chat-gift-grid">
      {gifts.map((gift) => (
        <button
          key={gift.id}
          type="button"
          className="btn btn-outline-secondary chat-gift-choice"
          onClick={() => onChoose(gift)}
          disabled={disabled}
          data-testid={`gift-${gift.id}`}
        >
          <GiftPicture gift={gift} size={48} />
          <span className="small d-block" aria-hidden="true">
            {gift.name}
          </span>
        </button>
      ))}
    </div>
  );
}
