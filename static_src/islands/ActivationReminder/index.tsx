import { mountIsland } from "../../lib/mount";
import { ActivationReminder } from "./ActivationReminder";

mountIsland("ActivationReminder", ActivationReminder);
