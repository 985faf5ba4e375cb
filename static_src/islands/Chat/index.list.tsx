import { mountIsland } from "../../lib/mount";
import { startRealtime } from "../../lib/realtime";
import { appStore } from "../../lib/store";
import { Chat } from "./Chat";

// The list page /chats (`{% island "Chat" props variant="list" %}`): no conversation is open
// there, and opening one loads its page (/chats/<id>, index.tsx), so this entry leaves the
// conversation's code out. The list listens to the page's live connection from its first
// render, so it opens it now; the base entry's member code (base/member.ts) finds it open.
if (appStore.get().user) startRealtime();
mountIsland("Chat", Chat);
