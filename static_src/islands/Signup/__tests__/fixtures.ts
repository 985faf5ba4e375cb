import { vi } from "vitest";

import { configureApi } from "../../../lib/api";
import type { SignupProps, SignupStrings } from "../types";

export const strings: SignupStrings = {
  title: "Sign up for free",
  close: "Close",
  stepOf: "Step {step} of {total}",
  back: "Back",
  next: "Next",
  skip: "Skip",
  save: "Save and continue",
  saving: "Please wait…",
  error: "An error has occurred.",
  signupsClosed: "Signing up is not possible right now.",
  messageTitle: "Write a message to {name}",
  messageLabel: "Your message to {name}",
  messageHelp: "{name} receives your message once you confirm.",
  accountTitle: "Create your free account",
  email: "E-mail address",
  name: "Name",
  nameHelp: "Other members see this name.",
  dateOfBirth: "Date of birth",
  dateOfBirthHelp: "Enter your date of birth (18+)",
  day: "Day",
  month: "Month",
  year: "Year",
  password: "Password",
  passwordHelp: "At least 8 characters.",
  showPassword: "Show password",
  submit: "Create my account",
  terms: "By signing up you accept our terms.",
  termsLink: "Terms and conditions",
  privacyLink: "Privacy statement",
  invalidDate: "Invalid date of birth.",
  popupTitle: "Please check",
  ok: "OK",
  loginTitle: "Log in to your account",
  loginLink: "Go to the login page",
  loginSubmit: "Login",
  loginEmail: "Login e-mail",
  loginPassword: "Login password",
  accountDeletedHelp: "Our customer service can help.",
  serviceLink: "Contact customer service",
  photoTitle: "Add a profile photo",
  photoIntro: "Members with a photo get many more replies.",
  photoLabel: "Choose a photo",
  photoHelp: "JPEG, PNG or WebP.",
  photoUploading: "Uploading your photo…",
  photoAlt: "Your photo",
  photoPending: "Your photo will be visible once approved.",
  photoAnother: "Add another photo",
  locationTitle: "Where do you live?",
  country: "Country",
  region: "Region",
  regionChoose: "Choose a region",
  city: "City",
  useLocation: "Use my location",
  locating: "Finding your location…",
  locationFound: "Your location has been filled in.",
  locationFailed: "Your location could not be found. Please choose it yourself.",
  locationDenied: "Your browser does not share your location. Please choose it yourself.",
  personalTitle: "Tell us about yourself",
  gender: "I am a",
  sexuality: "My sexuality",
  aboutTitle: "About me",
  aboutLabel: "Describe yourself",
  aboutCount: "{count} of {max} characters",
  pushTitle: "Never miss a message",
  pushBody: "Get a notification when someone writes to you.",
  pushEnable: "Enable notifications",
  pushDenied: "Notifications are blocked in your browser.",
  pushFailed: "Notifications could not be enabled.",
  confirmTitle: "Confirm your e-mail address",
  confirmBody: "We have sent a link to {email}.",
  confirmMessages: "You will receive messages once confirmed.",
  confirmSpam: "No e-mail? Check your spam folder.",
  resend: "Send the e-mail again",
  resent: "We have sent the e-mail again.",
  continue: "Continue",
};

export function makeProps(overrides: Partial<SignupProps> = {}): SignupProps {
  return {
    strings,
    mode: "page",
    startStep: 0,
    profile: null,
    user: null,
    initial: null,
    countries: [
      { code: "GB", name: "United Kingdom" },
      { code: "FR", name: "France" },
    ],
    defaultCountry: "GB",
    regions: {
      GB: [
        { code: "GB-ENG", name: "England" },
        { code: "GB-SCT", name: "Scotland" },
      ],
      FR: [{ code: "FR-BRE", name: "Bretagne" }],
    },
    genders: [
      { value: "male", label: "Man" },
      { value: "female", label: "Woman" },
    ],
    sexualities: [
      { value: "hetero", label: "Heterosexual" },
      { value: "gay", label: "Gay" },
      { value: "lesbian", label: "Lesbian" },
      { value: "bi", label: "Bisexual" },
    ],
    months: ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"],
    minAge: 18,
    messageMaxLength: 1000,
    cityMaxLength: 120,
    aboutMaxLength: 2000,
    photoLimit: 3,
    pushPublicKey: "",
    signupsOpen: true,
    urls: {
      signup: "/api/signup.php",
      resend: "/api/signup/resend.php",
      profile: "/api/signup/profile.php",
      photo: "/api/signup/photo.php",
      user: "/api/user.php",
      push: "/api/user.php?push=1",
      serviceWorker: "/sw.js",
      login: "/login",
      afterLogin: "/",
      service: "/pages/service",
      terms: "/pages/terms",
      privacy: "/pages/privacy",
      matches: "/signup-matches",
    },
    ...overrides,
  };
}

export function json(status: number, data: unknown): Response {
  return new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
}

export function apiError(status: number, code: string, message: string, fields?: Record<string, string[]>): Response {
  return json(status, { error: { code, message, ...(fields ? { fields } : {}) } });
}

export interface Call {
  method: string;
  url: string;
  body: unknown;
  headers: Headers;
}

type Handler = (call: Call) => Response | Promise<Response>;

/** A fetch that answers by "METHOD /path?query" and records every call. */
export function fakeServer() {
  const routes = new Map<string, Handler[]>();
  const calls: Call[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const method = init?.method ?? "GET";
    let body: unknown = init?.body;
    if (typeof body === "string") body = JSON.parse(body);
    const call: Call = { method, url, body, headers: new Headers(init?.headers) };
    calls.push(call);
    const key = `${method} ${url}`;
    const queue = routes.get(key);
    if (!queue || queue.length === 0) throw new Error(`unexpected call ${key}`);
    const handler = queue.length > 1 ? queue.shift()! : queue[0]!;
    return handler(call);
  });
  configureApi({ fetch: fetchMock as unknown as typeof fetch, baseDelayMs: 0 });
  return {
    calls,
    fetchMock,
    /** Answers for `METHOD url`; several: one per call, the last one repeats. */
    on(method: string, url: string, ...handlers: Handler[]) {
      routes.set(`${method} ${url}`, handlers);
    },
    callsTo(method: string, url: string): Call[] {
      return calls.filter((c) => c.method === method && c.url === url);
    },
  };
}

export const USER = { id: 7, name: "Anna", email: "anna@example.com", status: "not_confirmed" };

export const STEP_PROFILE = {
  id: 3,
  gender: "",
  sexuality: "",
  country: "GB",
  region: "",
  city: "",
  about_me: "",
  main_photo: null,
};
