/**
 * The return from the gateway (?payment=<public id>; spec §2 "payment complete, pending and
 * failed screens", §4 "Payment"):
 * - loading (the gateway has not reported yet) and pending ("Processing your payment"):
 *   a spinner, and GET /api/payment.php?id= polled with backoff for about three minutes;
 * - completed: a toast "N credits added", the new balance, premium; the shared store gets
 *   the balance and premium so the top bar follows;
 * - failed or cancelled: "Payment failed or has been cancelled.", retry with the same
 *   method, or another method; a failed repeat order offers "Try again" and PayPal.
 */
import { useEffect, useRef, useState } from "react";

import { ApiError, csrfToken, get } from "../../lib/api";
import { CheckoutForm, type PayState } from "./CheckoutForm";
import type { DiscountCodeState } from "./discount";
import { fill } from "./money";
import { applyPurchaseToStore, isFinal, parsePayment, pollDelay, POLL_LIMIT_MS } from "./purchase";
import type { CheckoutPageProps, Discount, Payment } from "./types";

export const TOAST_MS = 6_000;

/** Polls the payment until it is final or the time is up; `slow` once it gave up. */
export function usePaymentPoll(initial: Payment, url: string) {
  const [payment, setPayment] = useState(initial);
  const [slow, setSlow] = useState(false);
  const [round, setRound] = useState(0);
  const open = !isFinal(payment.status);

  useEffect(() => {
    if (!open) return;
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    let waited = 0;
    const controller = new AbortController();

    const schedule = (delay: number) => {
      waited += delay;
      timer = setTimeout(() => void tick(), delay);
    };

    const tick = async () => {
      try {
        const data = await get<unknown>(url, { params: { id: initial.id }, retries: 0, signal: controller.signal });
        if (cancelled) return;
        const next = parsePayment(data);
        if (next) {
          setPayment(next);
          if (isFinal(next.status)) return;
        }
      } catch (err) {
        if (cancelled) return;
        if (err instanceof ApiError && err.status === 404) {
          setSlow(true);
          return;
        }
        // Network trouble or a server error: the next poll tries again.
      }
      if (waited >= POLL_LIMIT_MS) {
        setSlow(true);
        return;
      }
      schedule(pollDelay(attempt++));
    };

    // The first look at once: the gateway may have finished before the member came back.
    schedule(0);
    return () => {
      cancelled = true;
      clearTimeout(timer);
      controller.abort();
    };
    // Polling runs per payment and per "Check again"; loading -> pending does not restart it.
  }, [initial.id, url, round, open]);

  const again = () => {
    setSlow(false);
    setRound((n) => n + 1);
  };
  return { payment, slow: slow && open, again };
}

function CreditsToast({ text, closeLabel }: { text: string; closeLabel: string }) {
  const [shown, setShown] = useState(true);
  useEffect(() => {
    const timer = setTimeout(() => setShown(false), TOAST_MS);
    return () => clearTimeout(timer);
  }, []);
  if (!shown) return null;
  return (
    <div className="toast-container position-fixed bottom-0 end-0 p-3">
      <div
        className="toast show align-items-center text-bg-success border-0"
        role="status"
        aria-live="polite"
        aria-atomic="true"
        data-testid="credits-toast"
      >
        <div className="d-flex">
          <div className="toast-body fw-semibold">{text}</div>
          <button
            type="button"
            className="btn-close btn-close-white me-2 m-auto"
            aria-label={closeLabel}
            onClick={() => setShown(false)}
          />
        </div>
      </div>
    </div>
  );
}

export interface PaymentStateProps {
  props: CheckoutPageProps;
  initial: Payment;
  code: DiscountCodeState;
  payState: PayState;
  discount: Discount | null;
}

export function PaymentState({ props, initial, code, payState, discount }: PaymentStateProps) {
  const { strings } = props;
  const { payment, slow, again } = usePaymentPoll(initial, props.urls.payment);
  const stored = useRef<string | null>(null);

  useEffect(() => {
    if (payment.status !== "completed" || stored.current === payment.id) return;
    stored.current = payment.id;
    applyPurchaseToStore(payment);
  }, [payment]);

  if (payment.status === "completed") {
    const added = payment.credits_added_text ?? String(payment.credits);
    return (
      <div className="payment-state payment-completed text-center" data-testid="payment-completed" data-status="completed">
        <CreditsToast text={added} closeLabel={strings.close} />
        <div className="payment-state-icon payment-state-icon-success mx-auto mb-3" aria-hidden="true">
          <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" width="32" height="32" fill="currentColor">
            <path d="M13.854 3.646a.5.5 0 0 1 0 .708l-7 7a.5.5 0 0 1-.708 0l-3.5-3.5a.5.5 0 1 1 .708-.708L6.5 10.293l6.646-6.647a.5.5 0 0 1 .708 0" />
          </svg>
        </div>
        <h2 className="h3 mb-2">{strings.completed}</h2>
        <p className="lead mb-1" data-testid="payment-credits-added">
          {added}
        </p>
        <p className="mb-3" data-testid="payment-balance">
          {payment.balance_text ?? String(payment.balance)}
        </p>
        {payment.paid_user ? (
          <p className="mb-4" data-testid="payment-premium">
            <span className="badge rounded-pill text-bg-primary me-2">{strings.premiumBadge}</span>
            {strings.premium}
          </p>
        ) : null}
        <div className="d-flex flex-column flex-sm-row justify-content-center gap-2">
          <a className="btn btn-primary btn-lg" href={props.membersUrl} data-testid="payment-continue">
            {strings.continue}
          </a>
          <a className="btn btn-outline-primary btn-lg" href={props.urls.transactions}>
            {strings.transactions}
          </a>
        </div>
      </div>
    );
  }

  if (payment.status === "failed") {
    const failedMethod = props.methods.find((method) => method.code === payment.method);
    return (
      <div className="payment-state payment-failed" data-testid="payment-failed" data-status="failed">
        <div className="alert alert-danger d-flex align-items-center gap-2" role="alert">
          <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" width="20" height="20" fill="currentColor" aria-hidden="true" className="flex-shrink-0">
            <path d="M8.982 1.566a1.13 1.13 0 0 0-1.96 0L.165 13.233c-.457.778.091 1.767.98 1.767h13.713c.889 0 1.438-.99.98-1.767zM8 5c.535 0 .954.462.9.995l-.35 3.507a.552.552 0 0 1-1.1 0L7.1 5.995A.905.905 0 0 1 8 5m.002 6a1 1 0 1 1 0 2 1 1 0 0 1 0-2" />
          </svg>
          <span data-testid="payment-failed-message">{strings.failed}</span>
        </div>
        {props.recurring ? (
          <div className="card border-0 shadow-sm mb-4">
            <div className="card-body">
              <p className="mb-3">{strings.recurringFailed}</p>
              <div className="d-flex flex-column flex-sm-row gap-2">
                <form method="post" action={props.urls.repeatOrder} className="d-grid">
                  <input type="hidden" name="csrfmiddlewaretoken" value={csrfToken() ?? ""} />
                  <input type="hidden" name="package" value={String(props.package.id)} />
                  <button type="submit" className="btn btn-primary btn-lg" data-testid="payment-retry">
                    {strings.tryAgain}
                  </button>
                </form>
                {props.paypalUrl ? (
                  <a className="btn btn-outline-primary btn-lg" href={props.paypalUrl} data-testid="payment-paypal">
                    {strings.payPal}
                  </a>
                ) : null}
              </div>
            </div>
          </div>
        ) : failedMethod && failedMethod.code !== "directdebit" && !props.frozen ? (
          <div className="d-grid d-sm-block mb-4">
            <button
              type="button"
              className="btn btn-primary btn-lg"
              disabled={payState.paying}
              onClick={() => void payState.pay(failedMethod.code)}
              data-testid="payment-retry"
            >
              {fill(strings.tryAgainWith, { method: failedMethod.label })}
            </button>
          </div>
        ) : null}
        {props.recurring ? null : (
          <>
            <h2 className="h5 mb-3">{strings.tryOther}</h2>
            <CheckoutForm
              props={props}
              code={code}
              payState={payState}
              discount={discount}
              exclude={failedMethod ? failedMethod.code : null}
              initialMethod={null}
            />
          </>
        )}
      </div>
    );
  }

  return (
    <div className="payment-state payment-waiting text-center" data-testid={`payment-${payment.status}`} data-status={payment.status}>
      {slow ? (
        <>
          <p className="lead mb-3" data-testid="payment-slow">
            {strings.slow}
          </p>
          <div className="d-flex flex-column flex-sm-row justify-content-center gap-2">
            <button type="button" className="btn btn-primary" onClick={again} data-testid="payment-check-again">
              {strings.checkAgain}
            </button>
            <a className="btn btn-outline-primary" href={props.urls.transactions}>
              {strings.transactions}
            </a>
          </div>
        </>
      ) : (
        <>
          <div className="spinner-border text-primary mb-3 payment-spinner" aria-hidden="true" />
          <h2 className="h4 mb-2" role="status">
            {payment.status === "pending" ? strings.pending : strings.loading}
          </h2>
          {payment.status === "pending" ? <p className="text-body-secondary mb-0">{strings.pendingHelp}</p> : null}
        </>
      )}
    </div>
  );
}
