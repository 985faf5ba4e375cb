/**
 * The member's last opened chat on the list page /chats (spec §3 "last opened chat profile and
 * date"; docs/chat.md): the server keeps it and hands it over in the props ("lastOpened"). It
 * goes into appStore.lastOpenedChat, and where the chat layout shows the list and the
 * conversation side by side (_chat.scss, from md, 768 px) /chats opens that conversation. On
 * phones the list fills the screen, so /chats stays the list. Only the list page's entry
 * (index.list.tsx) loads this; the conversation page does not carry it.
 */
import { appStore, type AppState, type Store } from "../../lib/store";
import { withId } from "./format";
import type { ChatProps } from "./types";

/** The chat layout's two panes (_chat.scss: media-breakpoint-up(md)). */
export const TWO_PANES = "(min-width: 768px)";

/** Puts the last opened chat in the store; returns the address of its conversation when the
 * screen shows two panes, else null (the list stays). */
export function lastOpenedChat(
  props: Pick<ChatProps, "lastOpened" | "urls">,
  twoPanes: boolean,
  store: Store<AppState> = appStore,
): string | null {
  const last = props.lastOpened ?? null;
  store.set({ lastOpenedChat: last });
  return last && twoPanes ? withId(props.urls.chat, last.conversation) : null;
}

/** On the list page: with two panes, replaces /chats with the last opened conversation (the
 * back button skips /chats). Returns whether it leaves. */
export function openLastChat(props: Pick<ChatProps, "lastOpened" | "urls">): boolean {
  const url = lastOpenedChat(props, window.matchMedia(TWO_PANES).matches);
  if (url) window.location.replace(url);
  return url !== null;
}
