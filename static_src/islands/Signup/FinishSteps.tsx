/**
 * After step 4: the push step (spec §4 "a push step exists"), offered only where the
 * browser can do push and the site has a VAPID key, then the final step: confirm the
 * e-mail address, with "send the e-mail again" (spec §4, §8).
 */
import { useEffect, useState } from "react";

import { post } from "../../lib/api";
import { pushPermission, pushSupported } from "../../lib/pushSupport";
import { ErrorAlert, fill, toApiError } from "./components";
import type { SignupProps } from "./types";

/** Whether the push step is worth showing: supported, a key, and not refused before. */
export function pushStepAvailable(publicKey: string): boolean {
  try {
    return !!publicKey && pushSupported() && pushPermission() !== "denied";
  } catch {
    return false;
  }
}

/**
 * Subscribing (lib/pushSubscription.ts) comes with the "enable push" alert's module
 * (base/enablePush.ts), imported when the push step shows; the step waits for it, if it
 * must, only on the click.
 */
let subscription: Promise<typeof import("../../base/enablePush")> | null = null;

function loadSubscription() {
  subscription ??= import("../../base/enablePush").catch((err: unknown) => {
    subscription = null; // the next click tries again
    throw err;
  });
  return subscription;
}

interface PushStepProps {
  props: SignupProps;
  onNext: () => void;
}

export function PushStep({ props, onNext }: PushStepProps) {
  const { strings, urls } = props;
  const [state, setState] = useState<"idle" | "busy" | "denied" | "failed">("idle");

  // There by the click (the permission prompt wants the click's user gesture).
  useEffect(() => {
    loadSubscription().catch(() => {});
  }, []);

  const enable = async () => {
    setState("busy");
    let subscribeToPush;
    try {
      ({ subscribeToPush } = await loadSubscription());
    } catch {
      setState("failed");
      return;
    }
    const result = await subscribeToPush({
      publicKey: props.pushPublicKey,
      serviceWorkerUrl: urls.serviceWorker,
      saveUrl: urls.push,
    });
    if (result === "subscribed") onNext();
    else setState(result === "denied" ? "denied" : "failed");
  };

  const problem = state === "denied" ? strings.pushDenied : state === "failed" ? strings.pushFailed : null;
  return (
    <div data-testid="signup-push">
      <p>{strings.pushBody}</p>
      {problem && (
        <div className="alert alert-warning" role="alert" data-testid="signup-push-problem">
          {problem}
        </div>
      )}
      <div className="d-grid gap-2 d-sm-flex justify-content-sm-end mt-4">
        {!problem && (
          <button
            type="button"
            className="btn btn-primary order-sm-last"
            onClick={() => void enable()}
            disabled={state === "busy"}
            data-testid="signup-push-enable"
          >
            {state === "busy" ? strings.saving : strings.pushEnable}
          </button>
        )}
        <button
          type="button"
          className={problem ? "btn btn-primary" : "btn btn-outline-secondary"}
          onClick={onNext}
          disabled={state === "busy"}
          data-testid="signup-skip"
        >
          {problem ? strings.next : strings.skip}
        </button>
      </div>
    </div>
  );
}

interface ConfirmStepProps {
  props: SignupProps;
  email: string;
}

export function ConfirmStep({ props, email }: ConfirmStepProps) {
  const { strings, urls } = props;
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);

  const resend = async () => {
    setBusy(true);
    setResult(null);
    try {
      await post(urls.resend, undefined, { retries: 0 });
      setResult({ ok: true, message: strings.resent });
    } catch (err) {
      setResult({ ok: false, message: toApiError(err, strings.error).message });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div data-testid="signup-confirm">
      <p className="lead" data-testid="signup-confirm-body">
        {fill(strings.confirmBody, { email })}
      </p>
      <p>{strings.confirmMessages}</p>
      <p className="small text-body-secondary">{strings.confirmSpam}</p>
      <div aria-live="polite">
        {result?.ok && (
          <div className="alert alert-success" data-testid="signup-resent">
            {result.message}
          </div>
        )}
      </div>
      {result && !result.ok && <ErrorAlert message={result.message} testId="signup-resend-error" />}
      <div className="d-grid gap-2 d-sm-flex justify-content-sm-end mt-4">
        <a className="btn btn-primary order-sm-last" href={urls.matches} data-testid="signup-continue">
          {strings.continue}
        </a>
        <button
          type="button"
          className="btn btn-outline-primary"
          onClick={() => void resend()}
          disabled={busy}
          data-testid="signup-resend"
        >
          {busy ? strings.saving : strings.resend}
        </button>
      </div>
    </div>
  );
}
