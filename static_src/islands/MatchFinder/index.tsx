import { mountIsland } from "../../lib/mount";
import { MatchFinder } from "./MatchFinder";

mountIsland("MatchFinder", MatchFinder);
