/**
 * The conversation list (spec §2 chats, §4 Chat): photo, name, last message, unread count,
 * newest first. Deleting a chat takes it off the list at once, then DELETE /api/chat.php;
 * when that fails an alert shows the error and the list is loaded again.
 */
import { ApiError, del } from "../../lib/api";
import { reloadChats, removeChat } from "../../lib/chats";
import { appStore, useStore, type AppState } from "../../lib/store";
import { badgeLabel } from "../../lib/badgeLabel";
import { EmptyState } from "../../lib/EmptyState";
import { Silhouette } from "../../lib/silhouette";
import { fill, messageTime, withId } from "./format";
import { Icon } from "./Icon";
import { useState } from "./react";
import { API, type ChatSummary, type ChatUrls } from "./types";

const selectChats = (state: AppState) => state.chats;

/** The empty list's icon (Bootstrap Icons "chat"). */
const CHAT_ICON =
  "M2.678 11.894a1 1 0 0 1 .287.801 11 11 0 0 1-.398 2c1.395-.323 2.247-.697 2.634-.893a1 1 0 0 1 .71-.074A8 8 0 0 0 8 14c3.996 0 7-2.807 7-6s-3.004-6-7-6-7 2.808-7 6c0 1.468.617 2.83 1.678 3.894m-.493 3.905a22 22 0 0 1-.713.129c-.2.032-.352-.176-.273-.362a10 10 0 0 0 .244-.637l.003-.01c.248-.72.45-1.548.524-2.319C.743 11.37 0 9.76 0 8c0-3.866 3.582-7 8-7s8 3.134 8 7-3.582 7-8 7a9 9 0 0 1-2.347-.306c-.52.263-1.639.742-3.468 1.105";

export interface ChatListProps {
  strings: Record<string, string>;
  urls: ChatUrls;
  /** The conversation open beside the list (highlighted). */
  current?: number | null;
  /** The member's locale ("en-GB"): the times. */
  locale: string;
}

/** The profile's photo, else the silhouette; decorative (the name is beside it). */
export function Avatar({ src, size = 48 }: { src: string | null | undefined; size?: number }) {
  if (src) {
    return <img className="chat-avatar rounded-circle" src={src} alt="" width={size} height={size} loading="lazy" />;
  }
  return <Silhouette className="chat-avatar rounded-circle" size={size} testId="chat-avatar-silhouette" />;
}

function preview(chat: ChatSummary, strings: Record<string, string>): string {
  const last = chat.last_message;
  if (!last) return "";
  let text = last.text;
  if (last.kind === "photo") text = `📷 ${strings.photo}`;
  else if (last.kind === "gift") text = `${last.gift_emoji ?? "🎁"} ${last.gift_name || strings.gift}`;
  return last.mine ? `${strings.you} ${text}` : text;
}

export async function chatDelete(conversation: number, onError: (message: string) => void): Promise<void> {
  removeChat(conversation);
  try {
    await del(API.chat, { conversation }, { retries: 0 });
  } catch (err) {
    onError(err instanceof ApiError ? err.message : String(err));
    await reloadChats().catch(() => {});
  }
}

export function ChatList({ strings, urls, current = null, locale }: ChatListProps) {
  const chats = useStore(appStore, selectChats) ?? [];
  const [confirming, setConfirming] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  return (
    <div className="chat-list" data-testid="chat-list">
      <h2 className="chat-list-title h5 px-3 pt-3 pb-2 mb-0">{strings.title}</h2>
      {error && (
        <div className="alert alert-danger alert-dismissible mx-3 mb-2" role="alert" data-testid="chat-delete-error">
          {error}
          <button type="button" className="btn-close" aria-label={strings.close} onClick={() => setError(null)} />
        </div>
      )}
      {chats.length === 0 ? (
        <EmptyState icon={CHAT_ICON} title={strings.empty} text={strings.emptyHelp} testId="chat-empty">
          <a className="btn btn-primary" href={urls.search} data-testid="chat-empty-search">
            {strings.emptyAction}
          </a>
        </EmptyState>
      ) : (
        <ul className="list-unstyled mb-0">
          {chats.map((chat) => {
            const unread = badgeLabel(chat.num_unread_messages);
            const active = chat.conversation === current;
            return (
              <li
                key={chat.conversation}
                className={`chat-item${active ? " active" : ""}${unread ? " unread" : ""}`}
                data-testid={`chat-item-${chat.conversation}`}
              >
                {confirming === chat.conversation ? (
                  <div className="chat-item-confirm d-flex align-items-center gap-2 px-3 py-2">
                    <span className="flex-grow-1 small">{strings.deleteConfirm}</span>
                    <button
                      type="button"
                      className="btn btn-sm btn-danger"
                      data-testid="chat-delete-confirm"
                      onClick={() => {
                        setConfirming(null);
                        setError(null);
                        void chatDelete(chat.conversation, setError);
                      }}
                    >
                      {strings.delete}
                    </button>
                    <button type="button" className="btn btn-sm btn-outline-secondary" onClick={() => setConfirming(null)}>
                      {strings.cancel}
                    </button>
                  </div>
                ) : (
                  <div className="d-flex align-items-center">
                    <a
                      className="chat-item-link d-flex align-items-center gap-3 flex-grow-1 px-3 py-2 text-reset text-decoration-none"
                      href={withId(urls.chat, chat.conversation)}
                      aria-current={active ? "page" : undefined}
                    >
                      <Avatar src={chat.main_image?.thumb_filename} />
                      <span className="chat-item-body flex-grow-1">
                        <span className="d-flex align-items-baseline gap-2">
                          <span className="chat-item-name text-truncate">{chat.name}</span>
                          <span className="chat-item-time ms-auto small text-body-secondary">
                            {messageTime(chat.updated, locale)}
                          </span>
                        </span>
                        <span className="d-flex align-items-center gap-2">
                          <span className="chat-item-preview small text-truncate" data-testid="chat-preview">
                            {preview(chat, strings)}
                          </span>
                          {unread && (
                            <span
                              className="unread-badge ms-auto"
                              data-testid={`chat-unread-${chat.conversation}`}
                              title={fill(strings.unread, { count: chat.num_unread_messages })}
                            >
                              {unread}
                            </span>
                          )}
                        </span>
                      </span>
                    </a>
                    <button
                      type="button"
                      className="btn btn-link chat-item-delete text-body-secondary"
                      aria-label={fill(strings.deleteChat, { name: chat.name })}
                      title={strings.delete}
                      data-testid={`chat-delete-${chat.conversation}`}
                      onClick={() => setConfirming(chat.conversation)}
                    >
                      <Icon sprite={urls.icons} name="trash" size={16} />
                    </button>
                  </div>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
