import { mountIsland } from "../../lib/mount";
import { ProfileGift } from "./ProfileGift";

mountIsland("ProfileGift", ProfileGift);
