import { mountIsland } from "../../lib/mount";
import { Chat } from "./Chat";

mountIsland("Chat", Chat);
