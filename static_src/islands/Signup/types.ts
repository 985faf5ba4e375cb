/** Props of the Signup island, built by apps.accounts.views_signup.signup_island_props. */

import type { LocationStrings } from "../../lib/LocationButton";

export interface SignupStrings extends LocationStrings {
  title: string;
  close: string;
  stepOf: string;
  back: string;
  next: string;
  skip: string;
  save: string;
  saving: string;
  error: string;
  signupsClosed: string;
  messageTitle: string;
  messageLabel: string;
  messageHelp: string;
  accountTitle: string;
  email: string;
  name: string;
  nameHelp: string;
  dateOfBirth: string;
  dateOfBirthHelp: string;
  day: string;
  month: string;
  year: string;
  password: string;
  passwordHelp: string;
  showPassword: string;
  submit: string;
  terms: string;
  termsLink: string;
  privacyLink: string;
  invalidDate: string;
  popupTitle: string;
  ok: string;
  loginTitle: string;
  loginLink: string;
  loginSubmit: string;
  loginEmail: string;
  loginPassword: string;
  accountDeletedHelp: string;
  serviceLink: string;
  photoTitle: string;
  photoIntro: string;
  photoLabel: string;
  photoHelp: string;
  photoUploading: string;
  photoAlt: string;
  photoPending: string;
  photoAnother: string;
  locationTitle: string;
  country: string;
  region: string;
  regionChoose: string;
  city: string;
  personalTitle: string;
  gender: string;
  sexuality: string;
  aboutTitle: string;
  aboutLabel: string;
  aboutCount: string;
  pushTitle: string;
  pushBody: string;
  pushEnable: string;
  pushDenied: string;
  pushFailed: string;
  confirmTitle: string;
  confirmBody: string;
  confirmMessages: string;
  confirmSpam: string;
  resend: string;
  resent: string;
  continue: string;
}

export interface Choice {
  value: string;
  label: string;
}

export interface CodeName {
  code: string;
  name: string;
}

/** The profile a signup from /members/<id>/signup writes to (step 0 message). */
export interface TargetProfile {
  id: number;
  name: string;
  photo: string | null;
}

/** The member's own step fields (GET/PATCH /api/signup/profile.php "profile"). */
export interface StepProfile {
  id?: number;
  gender: string;
  sexuality: string;
  country: string;
  region: string;
  city: string;
  about_me: string;
  main_photo: string | null;
}

export interface SignupUrls {
  signup: string;
  resend: string;
  profile: string;
  photo: string;
  user: string;
  push: string;
  serviceWorker: string;
  login: string;
  afterLogin: string;
  service: string;
  terms: string;
  privacy: string;
  matches: string;
}

export interface SignupProps {
  strings: SignupStrings;
  /** "page": the island is the page's content; "modal": opened by [data-signup-modal]. */
  mode: "page" | "modal";
  /** 0: account (and message); 1: the steps after the account (/complete-signup). */
  startStep: number;
  profile: TargetProfile | null;
  /** The logged-in member (complete-signup), else null. A confirmed member skips the
   * "confirm your e-mail" step and goes on to the suggested profiles. */
  user: { email: string; name: string; confirmed?: boolean } | null;
  initial: StepProfile | null;
  countries: CodeName[];
  defaultCountry: string;
  regions: Record<string, CodeName[]>;
  genders: Choice[];
  sexualities: Choice[];
  /** Month names, January first, in the page's language. */
  months: string[];
  minAge: number;
  messageMaxLength: number;
  cityMaxLength: number;
  aboutMaxLength: number;
  photoLimit: number;
  /** The site's VAPID public key; empty: no push step. */
  pushPublicKey: string;
  signupsOpen: boolean;
  urls: SignupUrls;
}

export type StepId = "message" | "account" | "photo" | "location" | "personal" | "about" | "push" | "confirm";

/** What was typed at step 0, kept while the visitor moves back and forth or hits an error. */
export interface AccountValues {
  message: string;
  email: string;
  name: string;
  day: string;
  month: string;
  year: string;
  password: string;
}

export type FieldErrors = Record<string, string[]>;
