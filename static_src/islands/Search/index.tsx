import { mountIsland } from "../../lib/mount";
import { Search } from "./Search";

mountIsland("Search", Search);
