/**
 * The Checkout island (apps/payments/views_credits.py): the packages of /credits
 * (mode "packages"), and the payment page /credits/<id>[/<method>] with the payment's state
 * after the gateway (mode "checkout").
 */
import { CheckoutForm, usePay } from "./CheckoutForm";
import { useDiscountCode, useUntilExpired } from "./discount";
import { Packages } from "./Packages";
import { PaymentState } from "./PaymentState";
import type { CheckoutPageProps, CheckoutProps } from "./types";

function CheckoutPage(props: CheckoutPageProps) {
  const active = useUntilExpired(props.discount);
  const code = useDiscountCode({
    url: props.urls.discount,
    strings: props.strings,
    initialCode: props.code,
    initialError: props.codeError,
    initialDiscount: props.codeDiscount ?? null,
    packageId: props.package.id,
  });
  const payState = usePay(props, code);
  const discount = code.applied ?? active;

  if (props.payment) {
    return <PaymentState props={props} initial={props.payment} code={code} payState={payState} discount={discount} />;
  }
  return <CheckoutForm props={props} code={code} payState={payState} discount={discount} initialMethod={props.method} />;
}

export function Checkout(props: CheckoutProps) {
  return props.mode === "packages" ? <Packages {...props} /> : <CheckoutPage {...props} />;
}
