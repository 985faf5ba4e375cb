import { mountIsland } from "../../lib/mount";
import { startRealtime } from "../../lib/realtime";
import { appStore } from "../../lib/store";
import { Chat } from "./Chat";

// The chat listens to the page's live connection from its first render, so it opens it now;
// the base entry's member code (base/member.ts), loaded a moment later, finds it open.
if (appStore.get().user) startRealtime();
mountIsland("Chat", Chat);
