/**
 * The signup island (spec §4 "Signup", §2 signup modal): steps 0 to 4 (message or account,
 * photo, location, personal info, about me), the push step where possible, then "confirm
 * your e-mail address".
 *
 * mode "page": the page's content (/signup, /members/<id>/signup, /complete-signup from
 * step 1). mode "modal": rendered hidden on the default and empty layouts for visitors and
 * opened by any [data-signup-modal] element (or a "signup:open" event on document); it can
 * be closed until the account exists, and not by Escape, the backdrop or a button after.
 */
import { useCallback, useEffect, useRef, useState } from "react";

import { get } from "../../lib/api";
import { Dialog } from "../../lib/Dialog";
import { appStore, type AppUser } from "../../lib/store";
import { AccountStep, MessageStep } from "./AccountStep";
import { fill, navigation, setCsrfToken } from "./components";
import { ConfirmStep, PushStep, pushStepAvailable } from "./FinishSteps";
import { AboutStep, LocationStep, PersonalStep, PhotoStep, type UploadedPhoto } from "./ProfileSteps";
import type { AccountValues, SignupProps, StepId, StepProfile } from "./types";

export type { SignupProps } from "./types";

/** The event other islands may dispatch on document to open the signup modal. */
export const OPEN_EVENT = "signup:open";
export const TRIGGER_SELECTOR = "[data-signup-modal]";

const NUMBERED: StepId[] = ["account", "photo", "location", "personal", "about"];

function firstStep(props: SignupProps): StepId {
  if (props.startStep >= 1) return "photo";
  return props.profile ? "message" : "account";
}

export function nextStep(step: StepId, pushOffered: boolean): StepId {
  switch (step) {
    case "message":
      return "account";
    case "account":
      return "photo";
    case "photo":
      return "location";
    case "location":
      return "personal";
    case "personal":
      return "about";
    case "about":
      return pushOffered ? "push" : "confirm";
    default:
      return "confirm";
  }
}

function emptyProfile(props: SignupProps): StepProfile {
  return {
    gender: "",
    sexuality: "",
    country: props.defaultCountry,
    region: "",
    city: "",
    about_me: "",
    main_photo: null,
    ...(props.initial ?? {}),
  };
}

function stepTitle(step: StepId, props: SignupProps): string {
  const s = props.strings;
  switch (step) {
    case "message":
      return fill(s.messageTitle, { name: props.profile?.name ?? "" });
    case "account":
      return s.accountTitle;
    case "photo":
      return s.photoTitle;
    case "location":
      return s.locationTitle;
    case "personal":
      return s.personalTitle;
    case "about":
      return s.aboutTitle;
    case "push":
      return s.pushTitle;
    default:
      return s.confirmTitle;
  }
}

interface FlowProps {
  props: SignupProps;
  /** Whether the flow is on screen (the modal is open); focus follows the steps only then. */
  visible: boolean;
  headingLevel: 1 | 3;
  /** Called once the account exists: from then on the signup is in progress. */
  onStarted?: () => void;
}

export function SignupFlow({ props, visible, headingLevel, onStarted }: FlowProps) {
  const [step, setStep] = useState<StepId>(() => firstStep(props));
  const [account, setAccount] = useState<AccountValues>({
    message: "",
    email: "",
    name: "",
    day: "",
    month: "",
    year: "",
    password: "",
  });
  const [email, setEmail] = useState(props.user?.email ?? "");
  const [profile, setProfile] = useState<StepProfile>(() => emptyProfile(props));
  const [photos, setPhotos] = useState<UploadedPhoto[]>(() =>
    props.initial?.main_photo ? [{ id: 0, status: "active", thumb_url: props.initial.main_photo }] : [],
  );
  const [pushOffered] = useState(() => pushStepAvailable(props.pushPublicKey));
  const headingRef = useRef<HTMLHeadingElement>(null);
  const last = useRef({ step, visible: props.mode === "page" ? true : visible });

  // Focus moves to the heading of each new step, and to the heading when the modal opens.
  useEffect(() => {
    const previous = last.current;
    last.current = { step, visible };
    if (!visible || (previous.step === step && previous.visible === visible)) return;
    headingRef.current?.focus();
  }, [step, visible]);

  const go = useCallback(
    (to: StepId) => {
      if (to === "confirm" && props.user?.confirmed) navigation.assign(props.urls.matches);
      else setStep(to);
    },
    [props.user, props.urls.matches],
  );
  const next = () => go(nextStep(step, pushOffered));

  const onSignedUp = async (user: AppUser) => {
    appStore.set({ user });
    setEmail(typeof user.email === "string" && user.email ? user.email : account.email.trim());
    setAccount((values) => ({ ...values, password: "" }));
    onStarted?.();
    try {
      // Logging in rotated the CSRF token; this also brings the profile as stored.
      const data = await get<{ profile: StepProfile; csrf_token: string }>(props.urls.profile, { retries: 2 });
      setCsrfToken(data.csrf_token);
      if (data.profile) setProfile((current) => ({ ...current, ...data.profile }));
    } catch {
      // The steps are optional; each reports its own errors.
    }
    go("photo");
  };

  const numbered = NUMBERED.indexOf(step === "message" ? "account" : step);
  const offset = props.startStep >= 1 ? 1 : 0;
  const Heading = headingLevel === 1 ? "h1" : "h3";
  const change = (patch: Partial<AccountValues>) => setAccount((values) => ({ ...values, ...patch }));

  return (
    <div className="signup" data-testid="signup" data-step={step}>
      {numbered >= offset && (
        <p className="small text-body-secondary mb-1" data-testid="signup-progress">
          {fill(props.strings.stepOf, { step: numbered - offset + 1, total: NUMBERED.length - offset })}
        </p>
      )}
      <Heading className="h4 mb-3 signup-step-title" tabIndex={-1} ref={headingRef} data-testid="signup-step-title">
        {stepTitle(step, props)}
      </Heading>
      {step === "message" && (
        <MessageStep {...props} values={account} onChange={change} onNext={() => go("account")} />
      )}
      {step === "account" && (
        <AccountStep
          {...props}
          values={account}
          onChange={change}
          onBack={props.profile ? () => go("message") : undefined}
          onSignedUp={onSignedUp}
        />
      )}
      {step === "photo" && <PhotoStep props={props} photos={photos} onPhotos={setPhotos} onNext={next} />}
      {step === "location" && (
        <LocationStep props={props} profile={profile} onProfile={setProfile} onNext={next} onBack={() => go("photo")} />
      )}
      {step === "personal" && (
        <PersonalStep
          props={props}
          profile={profile}
          onProfile={setProfile}
          onNext={next}
          onBack={() => go("location")}
        />
      )}
      {step === "about" && (
        <AboutStep props={props} profile={profile} onProfile={setProfile} onNext={next} onBack={() => go("personal")} />
      )}
      {step === "push" && <PushStep props={props} onNext={next} />}
      {step === "confirm" && <ConfirmStep props={props} email={email} />}
    </div>
  );
}

export function SignupModal({ props }: { props: SignupProps }) {
  const [open, setOpen] = useState(false);
  const [locked, setLocked] = useState(false);
  const triggerRef = useRef<HTMLElement | null>(null);

  useEffect(() => {
    const onClick = (event: globalThis.MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return; // a new tab: the link's page
      const target = event.target instanceof Element ? event.target.closest<HTMLElement>(TRIGGER_SELECTOR) : null;
      if (!target) return;
      event.preventDefault();
      triggerRef.current = target;
      setOpen(true);
    };
    const onOpen = () => {
      triggerRef.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      setOpen(true);
    };
    // Capture: before the progress bar's click handler sees a navigation.
    document.addEventListener("click", onClick, true);
    document.addEventListener(OPEN_EVENT, onOpen);
    return () => {
      document.removeEventListener("click", onClick, true);
      document.removeEventListener(OPEN_EVENT, onOpen);
    };
  }, []);

  const close = useCallback(() => setOpen(false), []);
  const onStarted = useCallback(() => setLocked(true), []);

  // Spec §4: while the signup is in progress (the account exists) it cannot be closed: no
  // close button, and Escape and the backdrop only nudge it. It keeps its steps while closed.
  return (
    <Dialog
      open={open}
      onClose={close}
      closeOnEscape={!locked}
      closeOnBackdrop={!locked}
      title={props.strings.title}
      closeLabel={locked ? undefined : props.strings.close}
      closeTestId="signup-modal-close"
      initialFocus=".signup-step-title"
      returnFocus={triggerRef}
      fullscreenOnPhone
      keepMounted
      className="signup-modal"
      testId="signup-modal"
    >
      <SignupFlow props={props} visible={open} headingLevel={3} onStarted={onStarted} />
    </Dialog>
  );
}

export function Signup(props: SignupProps) {
  if (props.mode === "modal") return <SignupModal props={props} />;
  return (
    <div className="card shadow-sm">
      <div className="card-body p-3 p-sm-4">
        <SignupFlow props={props} visible headingLevel={1} />
      </div>
    </div>
  );
}
