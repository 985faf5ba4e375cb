/** Shapes of the chat API (docs/chat.md) as the Chat island uses them. */
import type { IslandProps } from "../../lib/mount";
import type { ChatSummary, LastOpenedChat, MainImage } from "../../lib/store";

export type { ChatSummary, LastOpenedChat };

export type MessageKind = "text" | "photo" | "gift";

export interface MessagePhoto {
  filename: string;
  thumb_filename: string;
  width: number;
  height: number;
}

export interface MessageGift {
  id: number;
  name: string;
  emoji: string;
  image: string | null;
}

export interface MessageData {
  id: number;
  conversation: number;
  profile: number;
  mine: boolean;
  kind: MessageKind;
  text: string;
  photo: MessagePhoto | null;
  gift: MessageGift | null;
  created: string | null;
  delivered_at: string | null;
  read_at: string | null;
  client_id?: string;
  credits?: number;
  held?: boolean;
  /** A new account's first message with scam signals, shown with a safety notice (apps.chat.safety). */
  safety_notice?: boolean;
}

/** A message on screen: from the server, or one of ours on its way ("local"). */
export interface ShownMessage extends MessageData {
  local?: "sending" | "queued";
  /** A photo being sent: its picture from the device. */
  previewUrl?: string;
}

export interface ChatProfile {
  id: number;
  name: string;
  main_image: MainImage | null;
  is_fictional?: boolean;
}

export interface History {
  conversation: { id: number; profile: ChatProfile; num_unread_messages: number };
  messages: MessageData[];
  has_older: boolean;
  costs?: Costs;
  credits?: number;
}

export interface Costs {
  text: number;
  photo: number;
  gift: number;
}

export interface Gift {
  id: number;
  name: string;
  emoji: string;
  image: string | null;
}

export interface ChatUrls {
  chats: string;
  /** With "{id}" for the conversation id. */
  chat: string;
  /** With "{id}" for the profile id. */
  profile: string;
  search: string;
  credits: string;
  premium: string;
  /** The icons' sprite, static/chat/icons.svg on the site's own host (Icon.tsx). */
  icons: string;
}

export interface ChatProps extends IslandProps {
  view: "list" | "conversation";
  chats: ChatSummary[];
  /** The member's last opened chat, or null: on wide screens /chats opens it (lastOpened.ts). */
  lastOpened?: LastOpenedChat | null;
  history: History | null;
  credits: number;
  messageLength: number;
  costs: Costs;
  costLabels: Record<MessageKind, string>;
  openers: string[];
  openGifts?: boolean;
  /** The reasons a message or conversation may be reported for: [value, label]. */
  reportReasons?: [string, string][];
  /** The member's locale, language and country ("en-GB", apps.common.locale.locale_tag): message times. */
  locale: string;
  urls: ChatUrls;
}

export const API = {
  chats: "/api/chats.php",
  chat: "/api/chat.php",
  read: "/api/chat-read.php",
  message: "/api/message.php",
  gifts: "/api/gifts.php",
  report: "/api/report.php",
};
