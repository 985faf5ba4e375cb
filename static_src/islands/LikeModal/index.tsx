import { mountIsland } from "../../lib/mount";
import { LikeModal } from "./LikeModal";

mountIsland("LikeModal", LikeModal);
