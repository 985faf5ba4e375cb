/**
 * The Checkout island (apps/payments/views_credits.py): the packages of /credits
 * (mode "packages", Packages.tsx), and the payment page /credits/<id>[/<method>] with the
 * payment's state after the gateway (mode "checkout", CheckoutPage.tsx). Each page loads an
 * entry with only its own mode (index.packages.tsx, index.tsx); this switch is both.
 */
import { CheckoutPage } from "./CheckoutPage";
import { Packages } from "./Packages";
import type { CheckoutProps } from "./types";

export function Checkout(props: CheckoutProps) {
  return props.mode === "packages" ? <Packages {...props} /> : <CheckoutPage {...props} />;
}
