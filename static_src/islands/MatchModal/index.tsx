import { mountIsland } from "../../lib/mount";
import { MatchModal } from "./MatchModal";

mountIsland("MatchModal", MatchModal);
