/**
 * The member's chat list in appStore.chats and the unread total that follows it: set from
 * the server's list, reloaded (GET /api/chats.php), a chat taken off. Used by the chat island
 * and by the periodic refresh (lib/refresh.ts, which re-exports these); apart from the
 * refresh's timer code, which only a member's page code (base/member.ts) runs.
 */
import { get } from "./api";
import { appStore, isObject, type AppState, type ChatSummary, type Store } from "./store";

export const CHATS_URL = "/api/chats.php";

/** Sets appStore.chats and totals.unreadMessages (the sum of the chats' unread counts). */
export function setChats(chats: ChatSummary[], store: Store<AppState> = appStore): void {
  const unread = chats.reduce((sum, chat) => sum + (Number(chat.num_unread_messages) || 0), 0);
  store.set((state) => ({
    chats,
    ...(state.totals.unreadMessages === unread ? {} : { totals: { ...state.totals, unreadMessages: unread } }),
  }));
}

/** Takes one chat off appStore.chats (deleted, or closed by a block); its unread count
 * leaves the total. */
export function removeChat(conversation: number, store: Store<AppState> = appStore): void {
  chatsGeneration++;
  store.set((state) => {
    const gone = state.chats?.find((chat) => chat.conversation === conversation);
    if (!state.chats || !gone) return {};
    const unread = Number(gone.num_unread_messages) || 0;
    return {
      chats: state.chats.filter((chat) => chat !== gone),
      ...(unread
        ? { totals: { ...state.totals, unreadMessages: Math.max(0, state.totals.unreadMessages - unread) } }
        : {}),
    };
  });
}

/** Counts the chats taken off the list here. A list that was asked for before one of
 * them was taken off may still hold it (the periodic refresh in flight while the member
 * deletes a chat): such an answer is dropped, the next one is current. */
let chatsGeneration = 0;

/** GET /api/chats.php into appStore.chats and the unread total. Throws on errors. */
export async function reloadChats(store: Store<AppState> = appStore, url: string = CHATS_URL): Promise<void> {
  const asked = chatsGeneration;
  const data = await get<unknown>(url, { retries: 0 });
  if (asked !== chatsGeneration) return;
  if (isObject(data) && Array.isArray(data.chats)) setChats(data.chats as ChatSummary[], store);
}

let reloadTimer: ReturnType<typeof setTimeout> | null = null;

/** The list follows a new message: reloadChats() 400 ms after the last call (several events,
 * one request); errors are silent, the next reload or refresh tries again. */
export function reloadChatsSoon(): void {
  if (reloadTimer !== null) clearTimeout(reloadTimer);
  reloadTimer = setTimeout(() => {
    reloadTimer = null;
    void reloadChats().catch(() => {});
  }, 400);
}
