import { mountIsland } from "../../lib/mount";
import { LoginNeeded } from "./LoginNeeded";

mountIsland("LoginNeeded", LoginNeeded);
