import { installActivityTracking } from "../../lib/activity";
import { mountIsland } from "../../lib/mount";
import { startRealtime } from "../../lib/realtime";
import { appStore } from "../../lib/store";
import { Chat } from "./Chat";
import { Conversation } from "./Conversation";
import type { ChatProps } from "./types";

// The chat listens to the page's live connection from its first render, so it opens it now;
// the base entry's member code (base/member.ts), loaded a moment later, finds it open.
if (appStore.get().user) startRealtime();
// Whether the member is at the screen (lib/activity.ts): an idle tab reads no messages. Only
// the conversation asks, so only its page tracks it (from the page's start, as before).
installActivityTracking();

/** /chats/<id>: the list and the open conversation (the list page /chats loads index.list.tsx). */
function ChatWithConversation(props: ChatProps) {
  return <Chat {...props} Conversation={Conversation} />;
}

mountIsland("Chat", ChatWithConversation);
