import { mountIsland } from "../../lib/mount";
import { Packages } from "./Packages";

// /credits (mode "packages", `{% island "Checkout" props variant="packages" %}`): the packages
// and the discount code, without the payment page's form and payment state (index.tsx).
mountIsland("Checkout", Packages);
