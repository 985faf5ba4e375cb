import { mountIsland } from "../../lib/mount";
import { Signup } from "./Signup";

mountIsland("Signup", Signup);
