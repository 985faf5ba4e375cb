import { installActivityTracking } from "../../lib/activity";
import { mountIsland } from "../../lib/mount";
import { Chat } from "./Chat";
import { Conversation } from "./Conversation";
import type { ChatProps } from "./types";

// The page's live connection (lib/realtime.ts) is not among this page's first modules: the
// island imports it after its first render (lib/realtimeLater.ts) and opens it for a member,
// unless the base entry's member code (base/member.ts) has opened it already.

// Whether the member is at the screen (lib/activity.ts): an idle tab reads no messages. Only
// the conversation asks, so only its page tracks it (from the page's start, as before).
installActivityTracking();

/** /chats/<id>: the list and the open conversation (the list page /chats loads index.list.tsx). */
function ChatWithConversation(props: ChatProps) {
  return <Chat {...props} Conversation={Conversation} />;
}

mountIsland("Chat", ChatWithConversation);
