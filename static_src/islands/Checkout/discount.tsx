/**
 * The discount-code field (spec §5 "Discount code input: 'Code not found' or 'Code already
 * used'"): GET /api/discountcode.php?code=&package=&method= checks the code; its error is
 * shown under the field and what the member typed stays; a valid code replaces the active
 * discount in the prices until it is removed.
 */
import { useCallback, useEffect, useId, useState, type FormEvent } from "react";

import { ApiError, get } from "../../lib/api";
import { fill } from "./money";
import type { CheckoutStrings, Discount } from "./types";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The discount of a /api/discountcode.php answer ({"discount_code": {...}}), or null. */
export function parseDiscount(data: unknown): Discount | null {
  const raw = isObject(data) && isObject(data.discount_code) ? data.discount_code : data;
  if (!isObject(raw) || typeof raw.code !== "string") return null;
  const percentage = Number(raw.percentage ?? raw.value_percentage);
  if (!Number.isFinite(percentage) || percentage <= 0) return null;
  return {
    code: raw.code,
    percentage,
    kind: typeof raw.kind === "string" ? raw.kind : "code",
    expires: typeof raw.expires === "string" ? raw.expires : null,
  };
}

export function normalizeCode(value: string): string {
  return value.trim().toUpperCase();
}

export interface DiscountCodeOptions {
  url: string;
  strings: CheckoutStrings;
  initialCode: string;
  initialError: string;
  initialDiscount: Discount | null;
  packageId?: number;
  method?: string | null;
}

export interface DiscountCodeState {
  value: string;
  setValue: (value: string) => void;
  error: string;
  checking: boolean;
  /** The code's discount once checked; null without a (valid) code. */
  applied: Discount | null;
  /** Checks the typed code: its discount, or null (the error is set). */
  apply: () => Promise<Discount | null>;
  remove: () => void;
  /** The server refused the code when paying: its message under the field, prices without it. */
  fail: (message: string) => void;
  /** Whether the typed code still has to be checked (typed but not applied). */
  pending: boolean;
}

export function useDiscountCode(options: DiscountCodeOptions): DiscountCodeState {
  const { url, strings, packageId, method } = options;
  const [value, setValue] = useState(options.initialCode);
  const [error, setError] = useState(options.initialError);
  const [checking, setChecking] = useState(false);
  const [applied, setApplied] = useState<Discount | null>(options.initialDiscount);

  const apply = useCallback(async (): Promise<Discount | null> => {
    const code = normalizeCode(value);
    if (!code) {
      setError(strings.codeEmpty);
      return null;
    }
    setChecking(true);
    setError("");
    try {
      const data = await get<unknown>(url, {
        params: { code, package: packageId ?? null, method: method || null },
        retries: 1,
      });
      const discount = parseDiscount(data);
      if (!discount) throw new ApiError(500, "error", strings.error);
      setApplied(discount);
      return discount;
    } catch (err) {
      const message = err instanceof ApiError ? (err.fields.code?.[0] ?? err.message) : strings.error;
      setError(message || strings.error);
      setApplied(null);
      return null;
    } finally {
      setChecking(false);
    }
  }, [value, url, packageId, method, strings]);

  const remove = useCallback(() => {
    setApplied(null);
    setValue("");
    setError("");
  }, []);

  const fail = useCallback((message: string) => {
    setApplied(null);
    setError(message);
  }, []);

  const change = useCallback((next: string) => {
    setValue(next);
    setError("");
  }, []);

  const pending = normalizeCode(value) !== "" && normalizeCode(value) !== (applied?.code ?? "");
  return { value, setValue: change, error, checking, applied, apply, remove, fail, pending };
}

export interface DiscountFieldProps {
  state: DiscountCodeState;
  strings: CheckoutStrings;
  disabled?: boolean;
}

export function DiscountField({ state, strings, disabled = false }: DiscountFieldProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const { value, error, checking, applied } = state;
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!checking) void state.apply();
  };
  return (
    <form className="discount-form" noValidate onSubmit={onSubmit} data-testid="discount-form">
      <label className="form-label fw-semibold" htmlFor={id}>
        {strings.codeLabel}
      </label>
      <div className="input-group has-validation">
        <input
          id={id}
          name="code"
          className={`form-control text-uppercase${error ? " is-invalid" : ""}${applied && !state.pending ? " is-valid" : ""}`}
          value={value}
          placeholder={strings.codePlaceholder}
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          maxLength={40}
          disabled={disabled}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          onChange={(event) => state.setValue(event.target.value)}
          data-testid="discount-input"
        />
        <button
          className="btn btn-outline-primary"
          type="submit"
          disabled={disabled || checking}
          data-testid="discount-apply"
        >
          {checking ? strings.codeChecking : strings.codeApply}
        </button>
        {error ? (
          <div className="invalid-feedback" id={errorId} role="alert" data-testid="discount-error">
            {error}
          </div>
        ) : null}
      </div>
      {applied && !state.pending && !error ? (
        <div className="form-text text-success d-flex flex-wrap align-items-center gap-2" data-testid="discount-applied">
          <span>{fill(strings.codeApplied, { code: applied.code, percentage: applied.percentage })}</span>
          <button type="button" className="btn btn-link btn-sm p-0" onClick={state.remove} data-testid="discount-remove">
            {strings.removeCode}
          </button>
        </div>
      ) : null}
    </form>
  );
}

/** The text of the discount in force (time bonus, welcome discount or a code). */
export function discountText(discount: Discount, strings: CheckoutStrings): string {
  const values = { code: discount.code, percentage: discount.percentage };
  if (discount.kind === "timebonus") return fill(strings.discountTimeBonus, values);
  if (discount.kind === "welcome") return fill(strings.discountWelcome, values);
  return fill(strings.discountCode, values);
}

/**
 * The active discount until it expires (time bonus, welcome discount): afterwards null, so
 * the prices shown are the prices the member will pay.
 */
export function useUntilExpired(discount: Discount | null): Discount | null {
  const [current, setCurrent] = useState(discount);
  useEffect(() => {
    setCurrent(discount);
    if (!discount?.expires) return;
    const left = Date.parse(discount.expires) - Date.now();
    if (!Number.isFinite(left)) return;
    if (left <= 0) {
      setCurrent(null);
      return;
    }
    // setTimeout holds at most ~24.8 days.
    const timer = setTimeout(() => setCurrent(null), Math.min(left, 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [discount]);
  return current;
}
