import { mountIsland } from "../../lib/mount";
import { CheckoutPage } from "./CheckoutPage";

// The payment page /credits/<id>[/<method>] (mode "checkout"); the packages of /credits have
// an entry of their own (index.packages.tsx), so neither page carries the other's code.
mountIsland("Checkout", CheckoutPage);
