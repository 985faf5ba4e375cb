/**
 * Reading the conversation (spec §4: opening it makes its unread count 0): "read" over the
 * live connection, else POST /api/chat-read.php, and the store's unread counts (the list, the
 * top bar) follow. Only a member at the screen reads (lib/activity.ts). A hook of its own so
 * that the transport only has to say when something unread came.
 */
import { memberActive, onActive } from "../../lib/activity";
import { post } from "../../lib/api";
import type { Realtime } from "../../lib/realtime";
import { appStore, type AppState } from "../../lib/store";
import { useCallback, useEffect } from "./react";
import { API } from "./types";

/** The list's unread count of this conversation becomes 0 (and the top-bar total follows). */
function storeMarkRead(conversation: number, unreadTotal?: unknown): void {
  appStore.set((state) => {
    const chats = state.chats;
    const chat = chats?.find((c) => c.conversation === conversation);
    const out: Partial<AppState> = {};
    if (chats && chat && chat.num_unread_messages) {
      out.chats = chats.map((c) => (c.conversation === conversation ? { ...c, num_unread_messages: 0 } : c));
    }
    const total =
      typeof unreadTotal === "number"
        ? unreadTotal
        : Math.max(0, state.totals.unreadMessages - (chat?.num_unread_messages ?? 0));
    if (total !== state.totals.unreadMessages) out.totals = { ...state.totals, unreadMessages: total };
    return out;
  });
}

/** POST /api/chat-read.php: the conversation is read (without the socket); the store follows. */
function postRead(conversation: number): void {
  post<{ unread_total?: number }>(API.read, { conversation }, { retries: 0 }).then(
    (data) => storeMarkRead(conversation, data?.unread_total),
    () => {},
  );
}

/** Reads `conversation` on opening and when the member comes back to the screen; returns the
 * function that reads it now (what came while the member is at the screen). */
export function useReadMarks(conversation: number, realtime: Realtime | null | undefined): () => void {
  const markRead = useCallback(() => {
    // Only a member at the screen reads: a visible tab nobody uses leaves messages unread,
    // so they become a notice (lib/activity.ts); the next input reads them.
    if (!memberActive()) return;
    if (realtime?.send({ type: "read", conversation })) {
      storeMarkRead(conversation);
      return;
    }
    postRead(conversation);
  }, [conversation, realtime]);

  // Opening the conversation reads it (spec §4: its unread count becomes 0).
  useEffect(() => {
    postRead(conversation);
    // Back at the screen (the page shown again, input after idling): read what came.
    return onActive(markRead);
  }, [conversation, markRead]);

  return markRead;
}
