/** Small building blocks of the signup island. */
import { useId, type FormEvent, type RefObject } from "react";

import { ApiError } from "../../lib/api";
import { Dialog } from "../../lib/Dialog";
import type { FieldErrors, SignupStrings } from "./types";

/** Fills "{name}"-style placeholders the server left in a translated string. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (match, key: string) => (key in values ? String(values[key]) : match));
}

/** Any failure as an ApiError (a bug in our own code shows the generic message). */
export function toApiError(err: unknown, fallback: string): ApiError {
  if (err instanceof ApiError) return err;
  console.error(err);
  return new ApiError(0, "error", fallback);
}

/** Page navigations, replaceable in tests (jsdom cannot navigate). */
export const navigation = {
  assign(url: string): void {
    window.location.assign(url);
  },
};

export { setCsrfToken } from "../../lib/api";

export function describedBy(...ids: (string | false | null | undefined)[]): string | undefined {
  const list = ids.filter((id): id is string => !!id);
  return list.length ? list.join(" ") : undefined;
}

export function invalidClass(base: string, messages?: string[]): string {
  return messages?.length ? `${base} is-invalid` : base;
}

/** A field's messages from the server, under the field (Bootstrap invalid-feedback). */
export function Feedback({ id, field, messages }: { id: string; field: string; messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <div className="invalid-feedback d-block" id={id} data-testid={`signup-${field}-feedback`}>
      {messages.map((message, i) => (
        <div key={i}>{message}</div>
      ))}
    </div>
  );
}

/** Removes one field's messages once the member edits it. */
export function withoutField(errors: FieldErrors, field: string): FieldErrors {
  if (!(field in errors)) return errors;
  const { [field]: _removed, ...rest } = errors;
  return rest;
}

/** Moves focus to the first field marked invalid inside `root`. */
export function focusFirstInvalid(root: HTMLElement | null): void {
  root?.querySelector<HTMLElement>(".is-invalid")?.focus();
}

export function ErrorAlert({ message, testId = "signup-error" }: { message: string | null; testId?: string }) {
  if (!message) return null;
  return (
    <div className="alert alert-danger" role="alert" data-testid={testId}>
      {message}
    </div>
  );
}

/** A step form's submit handler: the page stays, `next` runs. */
export function submitTo(next: () => void) {
  return (event: FormEvent) => {
    event.preventDefault();
    next();
  };
}

interface StepButtonsProps {
  strings: SignupStrings;
  busy: boolean;
  submitLabel: string;
  /** The last step's submit is larger and named apart. */
  final?: boolean;
  onSkip?: () => void;
  onBack?: () => void;
}

/** Save (submit) and, where the step allows it, Skip and Back. Full width on phones. */
export function StepButtons({ strings, busy, submitLabel, final = false, onSkip, onBack }: StepButtonsProps) {
  return (
    <div className="d-grid gap-2 d-sm-flex justify-content-sm-end align-items-sm-center mt-4">
      {onBack && (
        <button
          type="button"
          className="btn btn-link text-decoration-none order-last order-sm-first me-sm-auto px-sm-0"
          onClick={onBack}
          disabled={busy}
          data-testid="signup-back"
        >
          {strings.back}
        </button>
      )}
      <button
        type="submit"
        className={final ? "btn btn-primary btn-lg" : "btn btn-primary order-sm-last"}
        disabled={busy}
        data-testid={final ? "signup-submit" : "signup-save"}
      >
        {busy ? strings.saving : submitLabel}
      </button>
      {onSkip && (
        <button
          type="button"
          className="btn btn-outline-secondary"
          onClick={onSkip}
          disabled={busy}
          data-testid="signup-skip"
        >
          {strings.skip}
        </button>
      )}
    </div>
  );
}

interface PopupProps {
  open: boolean;
  title: string;
  message: string;
  okLabel: string;
  onClose: () => void;
  /** Where focus goes after it (the field to correct). */
  returnFocus?: RefObject<HTMLElement | null>;
}

/** A small alert dialog over everything (spec §5: "Invalid date of birth." as a popup). */
export function Popup({ open, title, message, okLabel, onClose, returnFocus }: PopupProps) {
  const bodyId = useId();
  return (
    <Dialog
      open={open}
      onClose={onClose}
      returnFocus={returnFocus}
      role="alertdialog"
      title={title}
      describedBy={bodyId}
      size="sm"
      className="signup-popup"
      headerClassName="border-0 pb-0"
      titleClassName="h6"
      footerClassName="py-2"
      testId="signup-popup"
      footer={
        <button type="button" className="btn btn-primary w-100" onClick={onClose} data-testid="signup-popup-ok">
          {okLabel}
        </button>
      }
    >
      <p className="mb-0" id={bodyId}>
        {message}
      </p>
    </Dialog>
  );
}
