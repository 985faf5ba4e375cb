import { mountIsland } from "../../lib/mount";
import { TimeBonus } from "./TimeBonus";

mountIsland("TimeBonus", TimeBonus);
