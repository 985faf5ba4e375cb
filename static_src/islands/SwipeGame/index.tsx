import { mountIsland } from "../../lib/mount";
import { SwipeGame } from "./SwipeGame";

mountIsland("SwipeGame", SwipeGame);
