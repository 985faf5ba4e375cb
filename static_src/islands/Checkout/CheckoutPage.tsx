/**
 * The payment page /credits/<id>[/<method>] (mode "checkout" of the Checkout island): the
 * form, or the payment's state after the gateway.
 */
import { CheckoutForm, usePay } from "./CheckoutForm";
import { useDiscountCode, useUntilExpired } from "./discount";
import { PaymentState } from "./PaymentState";
import type { CheckoutPageProps } from "./types";

export function CheckoutPage(props: CheckoutPageProps) {
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
