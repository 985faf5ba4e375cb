/**
 * /credits/<id>[/<method>] (spec §2 "payment method page"): the package with its discount,
 * the payment country's methods (the one of the address marked), the discount code, and
 * Pay: POST /api/payment.php {package, method, discount_code} answers the gateway's
 * checkout address, where the member goes. SEPA direct debit is the SMS page instead.
 */
import { useCallback, useState, type FormEvent } from "react";

import { ApiError, post } from "../../lib/api";
import { DiscountField, discountText, type DiscountCodeState } from "./discount";
import { discounted, fill, formatMoney } from "./money";
import type { CheckoutPageProps, Discount, Method, Package } from "./types";

export const DIRECT_DEBIT = "directdebit";

/** Leaving for the gateway; replaceable in tests. */
export const navigation = {
  assign(url: string): void {
    window.location.assign(url);
  },
};

export function pricedPackage(pkg: Package, discount: Discount | null, serverDiscount: Discount | null): Package {
  if (discount === serverDiscount) return pkg;
  return { ...pkg, amount: discounted(pkg.listAmount, discount?.percentage ?? 0) };
}

export interface PayState {
  pay: (method: string) => Promise<void>;
  paying: boolean;
  error: string;
}

/** Starts a payment and leaves for the checkout; errors stay on the page. */
export function usePay(props: CheckoutPageProps, code: DiscountCodeState): PayState {
  const [paying, setPaying] = useState(false);
  const [error, setError] = useState("");
  const { strings } = props;

  const pay = useCallback(
    async (method: string) => {
      setError("");
      let applied = code.applied;
      if (code.pending) {
        applied = await code.apply();
        if (!applied) return;
      }
      setPaying(true);
      try {
        const data = await post<{ checkout_url?: unknown }>(
          props.urls.payment,
          { package: props.package.id, method, discount_code: applied?.code ?? "" },
          { retries: 0 },
        );
        const url = data && typeof data.checkout_url === "string" ? data.checkout_url : "";
        if (!url) throw new ApiError(500, "error", strings.error);
        navigation.assign(url);
        // Stays "paying" while the browser leaves.
      } catch (err) {
        setPaying(false);
        if (err instanceof ApiError && err.fields.code?.length) {
          code.fail(err.fields.code[0]);
        } else {
          setError(err instanceof ApiError ? err.message : strings.error);
        }
      }
    },
    [code, props.urls.payment, props.package.id, strings],
  );
  return { pay, paying, error };
}

export interface MethodListProps {
  methods: Method[];
  chosen: string | null;
  onChoose: (method: Method) => void;
  strings: CheckoutPageProps["strings"];
  disabled?: boolean;
  exclude?: string | null;
}

export function MethodList({ methods, chosen, onChoose, strings, disabled = false, exclude = null }: MethodListProps) {
  return (
    <fieldset className="payment-methods" disabled={disabled}>
      <legend className="h6 mb-2">{strings.chooseMethod}</legend>
      <div className="list-group" data-testid="payment-methods">
        {methods
          .filter((method) => method.code !== exclude)
          .map((method) =>
            method.code === DIRECT_DEBIT ? (
              <a
                key={method.code}
                className="list-group-item list-group-item-action payment-method payment-method-link"
                href={method.href}
                data-testid={`method-${method.code}`}
              >
                <span className="d-flex flex-column">
                  <span className="fw-semibold">{method.label}</span>
                  <small className="text-body-secondary">{strings.directDebitNote}</small>
                </span>
                <svg
                  className="ms-auto flex-shrink-0"
                  xmlns="http://www.w3.org/2000/svg"
                  viewBox="0 0 16 16"
                  width="16"
                  height="16"
                  fill="currentColor"
                  aria-hidden="true"
                >
                  <path d="M4.646 1.646a.5.5 0 0 1 .708 0l6 6a.5.5 0 0 1 0 .708l-6 6a.5.5 0 0 1-.708-.708L10.293 8 4.646 2.354a.5.5 0 0 1 0-.708" />
                </svg>
              </a>
            ) : (
              <label
                key={method.code}
                className={`list-group-item list-group-item-action payment-method${chosen === method.code ? " active" : ""}`}
                data-testid={`method-${method.code}`}
                data-chosen={chosen === method.code ? "true" : undefined}
              >
                <input
                  className="form-check-input flex-shrink-0 m-0"
                  type="radio"
                  name="method"
                  value={method.code}
                  checked={chosen === method.code}
                  onChange={() => onChoose(method)}
                />
                <span className="fw-semibold">{method.label}</span>
              </label>
            ),
          )}
      </div>
    </fieldset>
  );
}

export interface CheckoutFormProps {
  props: CheckoutPageProps;
  code: DiscountCodeState;
  payState: PayState;
  /** The discount in force (a code, else the active discount). */
  discount: Discount | null;
  /** Leave out the method that just failed (it has its own "Try again" button). */
  exclude?: string | null;
  /** Initially chosen method. */
  initialMethod: string | null;
}

export function CheckoutForm({ props, code, payState, discount, exclude = null, initialMethod }: CheckoutFormProps) {
  const { strings, locale } = props;
  const [method, setMethod] = useState<string | null>(
    initialMethod && props.methods.some((m) => m.code === initialMethod && m.code !== exclude) ? initialMethod : null,
  );
  const [methodError, setMethodError] = useState("");
  const pkg = pricedPackage(props.package, discount, props.discount);
  const price = formatMoney(pkg.amount, pkg.currency, locale);

  const choose = (chosen: Method) => {
    setMethod(chosen.code);
    setMethodError("");
    try {
      // The address names the method (spec §2 /credits/{id}/{paymentmethod}); a reload keeps it.
      window.history.replaceState(window.history.state, "", chosen.href);
    } catch {
      // History unavailable: the choice still counts.
    }
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (payState.paying) return;
    if (!method) {
      setMethodError(strings.chooseMethod);
      return;
    }
    void payState.pay(method);
  };

  return (
    <div className="row g-4 checkout-form">
      <div className="col-lg-5">
        <PackageSummary props={props} pkg={pkg} discount={discount} />
        {props.frozen ? null : (
          <div className="card border-0 shadow-sm mt-3">
            <div className="card-body">
              <DiscountField state={code} strings={strings} disabled={payState.paying} />
            </div>
          </div>
        )}
      </div>
      <div className="col-lg-7">
        {props.frozen ? (
          <div className="alert alert-warning" role="alert" data-testid="checkout-frozen">
            {strings.frozen}
          </div>
        ) : (
          <form onSubmit={onSubmit} noValidate data-testid="checkout-form">
            <MethodList
              methods={props.methods}
              chosen={method}
              onChoose={choose}
              strings={strings}
              disabled={payState.paying}
              exclude={exclude}
            />
            {methodError ? (
              <div className="text-danger small mt-2" role="alert" data-testid="method-error">
                {methodError}
              </div>
            ) : null}
            {payState.error ? (
              <div className="alert alert-danger mt-3 mb-0" role="alert" data-testid="checkout-error">
                {payState.error}
              </div>
            ) : null}
            <button
              type="submit"
              className="btn btn-primary btn-lg w-100 mt-3"
              disabled={payState.paying}
              data-testid="checkout-pay"
            >
              {payState.paying ? (
                <>
                  <span className="spinner-border spinner-border-sm me-2" aria-hidden="true" />
                  {strings.paying}
                </>
              ) : (
                fill(strings.pay, { price })
              )}
            </button>
            <p className="small text-body-secondary text-center mt-2 mb-0">{strings.secure}</p>
          </form>
        )}
      </div>
    </div>
  );
}

export function PackageSummary({
  props,
  pkg,
  discount,
}: {
  props: CheckoutPageProps;
  pkg: Package;
  discount: Discount | null;
}) {
  const { strings, locale } = props;
  const isDiscounted = pkg.amount < pkg.listAmount;
  return (
    <div className="card border-0 shadow-sm checkout-summary" data-testid="checkout-summary">
      <div className="card-body">
        <div className="text-body-secondary small mb-1">{strings.package}</div>
        <div className="d-flex justify-content-between align-items-end gap-3">
          <div className="checkout-credits">
            <span className="h2 fw-bold mb-0" data-testid="checkout-credits">
              {pkg.credits}
            </span>{" "}
            <span className="text-body-secondary">{pkg.unit}</span>
          </div>
          <div className="text-end">
            {isDiscounted ? (
              <del className="d-block text-body-secondary small" data-testid="checkout-list-price">
                {formatMoney(pkg.listAmount, pkg.currency, locale)}
              </del>
            ) : null}
            <span className="h4 fw-semibold mb-0" data-testid="checkout-price">
              {formatMoney(pkg.amount, pkg.currency, locale)}
            </span>
          </div>
        </div>
        {discount && isDiscounted ? (
          <p className="small mb-0 mt-2" data-testid="checkout-discount">
            <span className="badge text-bg-danger me-1">−{discount.percentage}%</span>
            {discountText(discount, strings)}
          </p>
        ) : null}
        <a className="d-inline-block small mt-2" href={props.urls.credits} data-testid="checkout-other-package">
          {strings.choosePackage}
        </a>
      </div>
    </div>
  );
}
