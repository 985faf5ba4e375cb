import { mountIsland } from "../../lib/mount";
import { EntryWarning } from "./EntryWarning";

mountIsland("EntryWarning", EntryWarning);
