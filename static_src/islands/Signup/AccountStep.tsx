/**
 * Step 0 (spec §4 "message or account"): the message to a profile when the signup starts
 * from one, then the account (POST /api/signup.php). Every message of the server shows
 * under its field; "Invalid date of birth." also as a popup (spec §5); an existing account
 * gets a login prompt, an account being deleted its reactivation guidance (spec §4).
 */
import { useId, useRef, useState, type FormEvent, type RefObject } from "react";

import { post } from "../../lib/api";
import type { AppUser } from "../../lib/store";
import {
  describedBy,
  ErrorAlert,
  Feedback,
  fill,
  focusFirstInvalid,
  invalidClass,
  navigation,
  Popup,
  StepButtons,
  submitTo,
  toApiError,
  withoutField,
} from "./components";
import type { AccountValues, FieldErrors, SignupProps } from "./types";

type Common = Pick<
  SignupProps,
  "strings" | "urls" | "months" | "minAge" | "profile" | "messageMaxLength" | "signupsOpen"
>;

// --- The message (only when signing up from a profile) ------------------------------------

interface MessageStepProps extends Common {
  values: AccountValues;
  onChange: (patch: Partial<AccountValues>) => void;
  onNext: () => void;
}

export function MessageStep({ strings, profile, values, onChange, onNext, messageMaxLength }: MessageStepProps) {
  const id = useId();
  const name = profile?.name ?? "";
  return (
    <form
      noValidate
      onSubmit={submitTo(onNext)}
      data-testid="signup-message-form"
    >
      {profile && (
        <div className="d-flex align-items-center gap-3 mb-3">
          {profile.photo ? (
            <img className="rounded-circle object-fit-cover flex-shrink-0" src={profile.photo} alt="" width={56} height={56} />
          ) : null}
          <p className="fw-semibold mb-0">{name}</p>
        </div>
      )}
      <div className="mb-3">
        <label className="form-label" htmlFor={`${id}-message`}>
          {fill(strings.messageLabel, { name })}
        </label>
        <textarea
          className="form-control"
          id={`${id}-message`}
          name="signup_message"
          rows={4}
          maxLength={messageMaxLength}
          value={values.message}
          onChange={(event) => onChange({ message: event.target.value })}
          aria-describedby={`${id}-message-help`}
          data-testid="signup-message"
        />
        <div className="form-text" id={`${id}-message-help`}>
          {fill(strings.messageHelp, { name })}
        </div>
      </div>
      <div className="d-grid d-sm-flex justify-content-sm-end mt-4">
        <button type="submit" className="btn btn-primary" data-testid="signup-message-next">
          {strings.next}
        </button>
      </div>
    </form>
  );
}

// --- Date of birth: three selects, which phones show as their native pickers ---------------

/** "YYYY-MM-DD" from the three selects; "" when nothing was chosen. A partial choice is sent
 * as it is, so the server answers with its own message. */
export function dateOfBirth(values: Pick<AccountValues, "day" | "month" | "year">): string {
  if (!values.day && !values.month && !values.year) return "";
  const pad = (value: string) => (value ? value.padStart(2, "0") : "");
  return `${values.year}-${pad(values.month)}-${pad(values.day)}`;
}

interface DateOfBirthProps {
  id: string;
  strings: SignupProps["strings"];
  months: string[];
  minAge: number;
  values: AccountValues;
  onChange: (patch: Partial<AccountValues>) => void;
  messages?: string[];
  dayRef: RefObject<HTMLSelectElement | null>;
}

function DateOfBirthInput({ id, strings, months, minAge, values, onChange, messages, dayRef }: DateOfBirthProps) {
  const thisYear = new Date().getFullYear();
  const years: number[] = [];
  for (let year = thisYear - minAge; year >= thisYear - 100; year--) years.push(year);
  const describe = describedBy(`${id}-dob-help`, messages?.length ? `${id}-dob-feedback` : null);
  return (
    <fieldset className="mb-3 signup-dob">
      <legend className="form-label fs-6 mb-2">{strings.dateOfBirth}</legend>
      <div className="row g-2">
        <div className="col-3">
          <label className="visually-hidden" htmlFor={`${id}-day`}>
            {strings.day}
          </label>
          <select
            className={invalidClass("form-select", messages)}
            id={`${id}-day`}
            name="bday-day"
            autoComplete="bday-day"
            value={values.day}
            onChange={(event) => onChange({ day: event.target.value })}
            aria-describedby={describe}
            aria-invalid={messages?.length ? true : undefined}
            ref={dayRef}
            data-testid="signup-dob-day"
          >
            <option value="">{strings.day}</option>
            {Array.from({ length: 31 }, (_, i) => (
              <option key={i + 1} value={String(i + 1)}>
                {i + 1}
              </option>
            ))}
          </select>
        </div>
        <div className="col-5">
          <label className="visually-hidden" htmlFor={`${id}-month`}>
            {strings.month}
          </label>
          <select
            className={invalidClass("form-select", messages)}
            id={`${id}-month`}
            name="bday-month"
            autoComplete="bday-month"
            value={values.month}
            onChange={(event) => onChange({ month: event.target.value })}
            aria-describedby={describe}
            aria-invalid={messages?.length ? true : undefined}
            data-testid="signup-dob-month"
          >
            <option value="">{strings.month}</option>
            {months.map((name, i) => (
              <option key={i + 1} value={String(i + 1)}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div className="col-4">
          <label className="visually-hidden" htmlFor={`${id}-year`}>
            {strings.year}
          </label>
          <select
            className={invalidClass("form-select", messages)}
            id={`${id}-year`}
            name="bday-year"
            autoComplete="bday-year"
            value={values.year}
            onChange={(event) => onChange({ year: event.target.value })}
            aria-describedby={describe}
            aria-invalid={messages?.length ? true : undefined}
            data-testid="signup-dob-year"
          >
            <option value="">{strings.year}</option>
            {years.map((year) => (
              <option key={year} value={String(year)}>
                {year}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="form-text" id={`${id}-dob-help`}>
        {strings.dateOfBirthHelp}
      </div>
      <Feedback id={`${id}-dob-feedback`} field="date_of_birth" messages={messages} />
    </fieldset>
  );
}

// --- An account exists already: log in right here, or on the login page ----------------------

interface LoginPromptProps {
  strings: SignupProps["strings"];
  urls: SignupProps["urls"];
  message: string;
  email: string;
  password: string;
}

function LoginPrompt({ strings, urls, message, email: initialEmail, password: initialPassword }: LoginPromptProps) {
  const id = useId();
  const [email, setEmail] = useState(initialEmail);
  const [password, setPassword] = useState(initialPassword);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const loginHref = `${urls.login}?${new URLSearchParams({ next: urls.afterLogin }).toString()}`;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await post(urls.user, { email: email.trim(), password }, { retries: 0 });
      navigation.assign(urls.afterLogin);
    } catch (err) {
      setError(toApiError(err, strings.error).message);
      setBusy(false);
    }
  };

  return (
    <div className="alert alert-info" role="alert" data-testid="signup-account-exists">
      <p className="fw-semibold">{message}</p>
      <form noValidate onSubmit={submit} aria-labelledby={`${id}-title`} data-testid="signup-login-form">
        <h3 className="h6" id={`${id}-title`}>
          {strings.loginTitle}
        </h3>
        <div className="mb-2">
          <label className="form-label small mb-1" htmlFor={`${id}-email`}>
            {strings.loginEmail}
          </label>
          <input
            className="form-control"
            id={`${id}-email`}
            type="email"
            inputMode="email"
            autoComplete="email"
            autoCapitalize="none"
            spellCheck={false}
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </div>
        <div className="mb-2">
          <label className="form-label small mb-1" htmlFor={`${id}-password`}>
            {strings.loginPassword}
          </label>
          <input
            className="form-control"
            id={`${id}-password`}
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            data-testid="signup-login-password"
          />
        </div>
        <ErrorAlert message={error} testId="signup-login-error" />
        <div className="d-grid gap-2 d-sm-flex align-items-sm-center">
          <button type="submit" className="btn btn-primary" disabled={busy} data-testid="signup-login-submit">
            {busy ? strings.saving : strings.loginSubmit}
          </button>
          <a className="btn btn-link" href={loginHref} data-testid="signup-login-link">
            {strings.loginLink}
          </a>
        </div>
      </form>
    </div>
  );
}

// --- The account -----------------------------------------------------------------------------

type Notice =
  | { kind: "error"; message: string }
  | { kind: "exists"; message: string }
  | { kind: "deleted"; message: string };

interface AccountStepProps extends Common {
  values: AccountValues;
  onChange: (patch: Partial<AccountValues>) => void;
  onBack?: () => void;
  onSignedUp: (user: AppUser) => Promise<void> | void;
}

/** An eye (the password is hidden: show it) or a struck-out eye (shown: hide it). */
function PasswordIcon({ shown }: { shown: boolean }) {
  return (
    <svg viewBox="0 0 16 16" width="18" height="18" fill="currentColor" aria-hidden="true" focusable="false">
      <path d="M16 8s-3-5.5-8-5.5S0 8 0 8s3 5.5 8 5.5S16 8 16 8M1.17 8a13 13 0 0 1 1.66-2.04C4.12 4.67 5.88 3.5 8 3.5s3.88 1.17 5.17 2.46A13 13 0 0 1 14.83 8q-.09.13-.2.3c-.33.48-.82 1.12-1.46 1.76C11.88 11.33 10.12 12.5 8 12.5s-3.88-1.17-5.17-2.46A13 13 0 0 1 1.17 8" />
      <path d="M8 5.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5M4.5 8a3.5 3.5 0 1 1 7 0 3.5 3.5 0 0 1-7 0" />
      {shown && <path d="M13.65 1.65a.5.5 0 0 1 .7.7l-12 12a.5.5 0 0 1-.7-.7z" />}
    </svg>
  );
}

export function AccountStep(props: AccountStepProps) {
  const { strings, urls, months, minAge, profile, values, onChange, onBack, onSignedUp } = props;
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const dayRef = useRef<HTMLSelectElement>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [notice, setNotice] = useState<Notice | null>(null);
  const [popup, setPopup] = useState(false);
  const [busy, setBusy] = useState(false);
  const [showPassword, setShowPassword] = useState(false);

  if (!props.signupsOpen) {
    return <ErrorAlert message={strings.signupsClosed} testId="signup-closed" />;
  }

  const change = (field: keyof AccountValues, value: string, errorField: string = field) => {
    onChange({ [field]: value });
    setErrors((current) => withoutField(current, errorField));
  };
  const changeDate = (patch: Partial<AccountValues>) => {
    onChange(patch);
    setErrors((current) => withoutField(current, "date_of_birth"));
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setNotice(null);
    let user: AppUser;
    try {
      const data = await post<{ user: AppUser }>(
        urls.signup,
        {
          email: values.email.trim(),
          name: values.name.trim(),
          date_of_birth: dateOfBirth(values),
          password: values.password,
          signup_message: profile ? values.message : "",
          profile_id: profile ? profile.id : null,
        },
        { retries: 0 },
      );
      user = data.user;
    } catch (err) {
      const error = toApiError(err, strings.error);
      setErrors(error.fields);
      setNotice({
        kind: error.code === "account_exists" ? "exists" : error.code === "account_deleted" ? "deleted" : "error",
        message: error.message,
      });
      setBusy(false);
      if (error.fields.date_of_birth?.includes(strings.invalidDate)) {
        setPopup(true);
      } else {
        // After React has marked the fields.
        setTimeout(() => focusFirstInvalid(formRef.current), 0);
      }
      return;
    }
    setErrors({});
    await onSignedUp(user);
  };

  const field = (name: string) => ({
    messages: errors[name],
    feedbackId: `${id}-${name}-feedback`,
  });
  const email = field("email");
  const name = field("name");
  const password = field("password");

  return (
    <>
      {notice?.kind === "exists" ? (
        <LoginPrompt
          strings={strings}
          urls={urls}
          message={notice.message}
          email={values.email}
          password={values.password}
        />
      ) : notice?.kind === "deleted" ? (
        <div className="alert alert-warning" role="alert" data-testid="signup-account-deleted">
          <p className="mb-2">{notice.message}</p>
          <p className="mb-0">
            {strings.accountDeletedHelp}{" "}
            <a className="alert-link" href={urls.service} data-testid="signup-service-link">
              {strings.serviceLink}
            </a>
          </p>
        </div>
      ) : (
        <ErrorAlert message={notice?.message ?? null} />
      )}
      <form noValidate onSubmit={submit} ref={formRef} aria-busy={busy} data-testid="signup-account-form">
        <div className="mb-3">
          <label className="form-label" htmlFor={`${id}-email`}>
            {strings.email}
          </label>
          <input
            className={invalidClass("form-control", email.messages)}
            id={`${id}-email`}
            name="email"
            type="email"
            inputMode="email"
            autoComplete="email"
            autoCapitalize="none"
            spellCheck={false}
            value={values.email}
            onChange={(event) => change("email", event.target.value)}
            aria-invalid={email.messages ? true : undefined}
            aria-describedby={describedBy(email.messages && email.feedbackId)}
            data-testid="signup-email"
          />
          <Feedback id={email.feedbackId} field="email" messages={email.messages} />
        </div>
        <div className="mb-3">
          <label className="form-label" htmlFor={`${id}-name`}>
            {strings.name}
          </label>
          <input
            className={invalidClass("form-control", name.messages)}
            id={`${id}-name`}
            name="username"
            type="text"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            maxLength={150}
            value={values.name}
            onChange={(event) => change("name", event.target.value)}
            aria-invalid={name.messages ? true : undefined}
            aria-describedby={describedBy(`${id}-name-help`, name.messages && name.feedbackId)}
            data-testid="signup-name"
          />
          <div className="form-text" id={`${id}-name-help`}>
            {strings.nameHelp}
          </div>
          <Feedback id={name.feedbackId} field="name" messages={name.messages} />
        </div>
        <DateOfBirthInput
          id={id}
          strings={strings}
          months={months}
          minAge={minAge}
          values={values}
          onChange={changeDate}
          messages={errors.date_of_birth}
          dayRef={dayRef}
        />
        <div className="mb-3">
          <label className="form-label" htmlFor={`${id}-password`}>
            {strings.password}
          </label>
          <div className="input-group has-validation">
            <input
              className={invalidClass("form-control", password.messages)}
              id={`${id}-password`}
              name="password"
              type={showPassword ? "text" : "password"}
              autoComplete="new-password"
              autoCapitalize="none"
              spellCheck={false}
              value={values.password}
              onChange={(event) => change("password", event.target.value)}
              aria-invalid={password.messages ? true : undefined}
              aria-describedby={describedBy(`${id}-password-help`, password.messages && password.feedbackId)}
              data-testid="signup-password"
            />
            {/* An icon button: a long translated text ("Afficher le mot de passe") beside
                the field squeezed it to a third of a phone's width. Its one name is the
                text, visually hidden (and the tooltip); aria-pressed tells the state. */}
            <button
              type="button"
              className="btn btn-outline-secondary password-toggle"
              onClick={() => setShowPassword((shown) => !shown)}
              aria-controls={`${id}-password`}
              aria-pressed={showPassword}
              title={strings.showPassword}
              data-testid="signup-password-toggle"
            >
              <PasswordIcon shown={showPassword} />
              <span className="visually-hidden">{strings.showPassword}</span>
            </button>
          </div>
          <div className="form-text" id={`${id}-password-help`}>
            {strings.passwordHelp}
          </div>
          <Feedback id={password.feedbackId} field="password" messages={password.messages} />
        </div>
        {Object.entries(errors)
          .filter(([key]) => !["email", "name", "date_of_birth", "password"].includes(key))
          .map(([key, messages]) => (
            <Feedback key={key} id={`${id}-${key}-feedback`} field={key} messages={messages} />
          ))}
        <p className="small text-body-secondary mt-3 mb-0">
          {strings.terms}{" "}
          <a href={urls.terms} target="_blank" rel="noopener">
            {strings.termsLink}
          </a>
          {" · "}
          <a href={urls.privacy} target="_blank" rel="noopener">
            {strings.privacyLink}
          </a>
        </p>
        <StepButtons strings={strings} busy={busy} submitLabel={strings.submit} final onBack={onBack} />
      </form>
      <Popup
        open={popup}
        title={strings.popupTitle}
        message={strings.invalidDate}
        okLabel={strings.ok}
        returnFocus={dayRef}
        onClose={() => setPopup(false)}
      />
    </>
  );
}
