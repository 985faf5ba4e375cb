import { mountIsland } from "../../lib/mount";
import { Chat } from "./Chat";
import { openLastChat } from "./lastOpened";
import { useEffect } from "./react";
import type { ChatProps } from "./types";

// The list page /chats (`{% island "Chat" props variant="list" %}`): no conversation is open
// there, and opening one loads its page (/chats/<id>, index.tsx), so this entry leaves the
// conversation's code out. The live connection comes after the first render, as on the
// conversation's page (lib/realtimeLater.ts).

/** The list; on wide screens it opens the member's last opened conversation (lastOpened.ts),
 * showing the list meanwhile, as the conversation's page will beside it. */
function ChatListPage(props: ChatProps) {
  // Once, after the first render: the props of a page never change.
  useEffect(() => void openLastChat(props), []);
  return <Chat {...props} />;
}

mountIsland("Chat", ChatListPage);
