import { mountIsland } from "../../lib/mount";
import { Checkout } from "./Checkout";

mountIsland("Checkout", Checkout);
