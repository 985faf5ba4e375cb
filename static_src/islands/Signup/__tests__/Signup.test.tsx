import { act, cleanup, configure, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { resetApiConfig } from "../../../lib/api";
import { appStore, initialAppState } from "../../../lib/store";
import { navigation } from "../components";
import { Signup } from "../Signup";
import type { SignupProps } from "../types";
import { apiError, fakeServer, json, makeProps, STEP_PROFILE, strings, USER } from "./fixtures";

let server: ReturnType<typeof fakeServer>;

// The default 1 s is tight when the whole suite runs in parallel on a busy machine.
configure({ asyncUtilTimeout: 5000 });

beforeEach(() => {
  resetApiConfig();
  server = fakeServer();
  appStore.set(initialAppState());
  document.head.innerHTML = '<meta name="csrf-token" content="before-login">';
});

afterEach(() => {
  cleanup();
  document.head.innerHTML = "";
  document.body.innerHTML = "";
  document.body.className = "";
});

function renderSignup(overrides: Partial<SignupProps> = {}) {
  return render(<Signup {...makeProps(overrides)} />);
}

function fillAccount({
  email = "anna@example.com",
  name = "Anna",
  day = "5",
  month = "4",
  year = "1990",
  password = "a-Long-passphrase-42",
} = {}) {
  fireEvent.change(screen.getByLabelText("E-mail address"), { target: { value: email } });
  fireEvent.change(screen.getByLabelText("Name"), { target: { value: name } });
  fireEvent.change(screen.getByLabelText("Day"), { target: { value: day } });
  fireEvent.change(screen.getByLabelText("Month"), { target: { value: month } });
  fireEvent.change(screen.getByLabelText("Year"), { target: { value: year } });
  fireEvent.change(screen.getByLabelText("Password"), { target: { value: password } });
}

function signupSucceeds() {
  server.on("POST", "/api/signup.php", () => json(201, { user: USER }));
  server.on("GET", "/api/signup/profile.php", () =>
    json(200, { profile: { ...STEP_PROFILE, country: "FR" }, csrf_token: "after-login" }),
  );
}

async function createAccount() {
  signupSucceeds();
  fillAccount();
  fireEvent.click(screen.getByTestId("signup-submit"));
  await screen.findByRole("heading", { name: "Add a profile photo" });
}

const title = () => screen.getByTestId("signup-step-title");

describe("step 0: the account", () => {
  it("shows labelled fields, step 1 of 5, and sends the account", async () => {
    renderSignup();
    expect(title().textContent).toBe("Create your free account");
    expect(screen.getByTestId("signup-progress").textContent).toBe("Step 1 of 5");
    expect(screen.getByLabelText("E-mail address").getAttribute("type")).toBe("email");
    expect(screen.getByLabelText("Password").getAttribute("autocomplete")).toBe("new-password");
    expect(screen.getByRole("group", { name: "Date of birth" })).toBeTruthy();
    // Years: the youngest allowed first.
    const years = [...(screen.getByLabelText("Year") as HTMLSelectElement).options].map((o) => o.value);
    expect(years[1]).toBe(String(new Date().getFullYear() - 18));

    await createAccount();

    const [call] = server.callsTo("POST", "/api/signup.php");
    expect(call!.body).toEqual({
      email: "anna@example.com",
      name: "Anna",
      date_of_birth: "1990-04-05",
      password: "a-Long-passphrase-42",
      signup_message: "",
      profile_id: null,
    });
    expect(call!.headers.get("X-CSRFToken")).toBe("before-login");
    // Logging in rotated the CSRF token: the page's meta tag follows.
    expect(document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')!.content).toBe("after-login");
    expect(appStore.get().user).toEqual(USER);
    // The heading takes the focus in the effect that follows the step change.
    await waitFor(() => expect(document.activeElement).toBe(title()));
    expect(screen.getByTestId("signup-progress").textContent).toBe("Step 2 of 5");
  });

  it("shows and hides the password with an icon button named by its text", () => {
    renderSignup();
    const input = screen.getByLabelText("Password");
    // One name, whatever the state (aria-pressed tells it); the text is not shown beside
    // the field, so a long translation cannot squeeze it.
    const toggle = screen.getByRole("button", { name: "Show password" });
    expect(toggle).toBe(screen.getByTestId("signup-password-toggle"));
    expect(toggle.querySelector("svg")?.getAttribute("aria-hidden")).toBe("true");
    expect(toggle.querySelector(".visually-hidden")?.textContent).toBe("Show password");
    expect(input.getAttribute("type")).toBe("password");
    expect(toggle.getAttribute("aria-pressed")).toBe("false");
    fireEvent.click(toggle);
    expect(input.getAttribute("type")).toBe("text");
    expect(toggle.getAttribute("aria-pressed")).toBe("true");
    expect(screen.getByRole("button", { name: "Show password", pressed: true })).toBe(toggle);
    fireEvent.click(toggle);
    expect(input.getAttribute("type")).toBe("password");
  });

  it("shows each field's messages under the field and loses nothing typed", async () => {
    server.on("POST", "/api/signup.php", () =>
      apiError(400, "invalid", "Please check the fields marked in red.", {
        email: ["Invalid email"],
        name: ["Username may not start with @"],
        password: ["This password is too short.", "This password is too common."],
      }),
    );
    renderSignup();
    fillAccount({ email: "anna@", name: "@anna", password: "123" });
    fireEvent.click(screen.getByTestId("signup-submit"));

    const feedback = await screen.findByTestId("signup-email-feedback");
    expect(feedback.textContent).toBe("Invalid email");
    const email = screen.getByLabelText("E-mail address");
    expect(email.classList.contains("is-invalid")).toBe(true);
    expect(email.getAttribute("aria-invalid")).toBe("true");
    expect(email.getAttribute("aria-describedby")).toContain(feedback.id);
    expect(screen.getByTestId("signup-name-feedback").textContent).toBe("Username may not start with @");
    expect(screen.getByTestId("signup-password-feedback").textContent).toBe(
      "This password is too short.This password is too common.",
    );
    expect(screen.getByTestId("signup-error").textContent).toBe("Please check the fields marked in red.");
    // Nothing typed is lost.
    expect((email as HTMLInputElement).value).toBe("anna@");
    expect((screen.getByLabelText("Name") as HTMLInputElement).value).toBe("@anna");
    expect((screen.getByLabelText("Password") as HTMLInputElement).value).toBe("123");
    expect((screen.getByLabelText("Year") as HTMLSelectElement).value).toBe("1990");
    await waitFor(() => expect(document.activeElement).toBe(email));

    // Editing a field removes its message only.
    fireEvent.change(email, { target: { value: "anna@example.com" } });
    expect(screen.queryByTestId("signup-email-feedback")).toBeNull();
    expect(email.classList.contains("is-invalid")).toBe(false);
    expect(screen.getByTestId("signup-name-feedback")).toBeTruthy();
  });

  it("shows 'Invalid date of birth.' under the date and as a popup", async () => {
    server.on("POST", "/api/signup.php", () =>
      apiError(400, "invalid", "Please check the fields marked in red.", {
        date_of_birth: ["Invalid date of birth."],
      }),
    );
    renderSignup();
    fillAccount({ day: "30", month: "2" });
    fireEvent.click(screen.getByTestId("signup-submit"));

    const popup = await screen.findByTestId("signup-popup");
    expect(popup.getAttribute("role")).toBe("alertdialog");
    expect(within(popup).getByText("Invalid date of birth.")).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByTestId("signup-popup-ok"));
    expect(screen.getByTestId("signup-date_of_birth-feedback").textContent).toBe("Invalid date of birth.");
    expect(server.callsTo("POST", "/api/signup.php")[0]!.body).toMatchObject({ date_of_birth: "1990-02-30" });

    fireEvent.click(screen.getByTestId("signup-popup-ok"));
    expect(screen.queryByTestId("signup-popup")).toBeNull();
    expect(document.activeElement).toBe(screen.getByLabelText("Day"));
    expect((screen.getByLabelText("Day") as HTMLSelectElement).value).toBe("30");
  });

  it("sends a partly chosen date as it is, for the server's message", async () => {
    server.on("POST", "/api/signup.php", () => apiError(400, "invalid", "x", { date_of_birth: ["Enter your date"] }));
    renderSignup();
    fillAccount({ day: "", month: "", year: "" });
    fireEvent.click(screen.getByTestId("signup-submit"));
    await screen.findByTestId("signup-date_of_birth-feedback");
    expect(server.calls[0]!.body).toMatchObject({ date_of_birth: "" });
    expect(screen.queryByTestId("signup-popup")).toBeNull();
  });

  it("offers a login for an existing account, inline and on the login page", async () => {
    const assign = vi.spyOn(navigation, "assign").mockImplementation(() => {});
    server.on("POST", "/api/signup.php", () =>
      apiError(409, "account_exists", "This email address already owns an account on this website. Please log in."),
    );
    server.on(
      "POST",
      "/api/user.php",
      () => apiError(400, "login_failed", "Login failed, please try again"),
      () => json(200, { user: USER }),
    );
    renderSignup({ urls: { ...makeProps().urls, afterLogin: "/members/12" } });
    fillAccount();
    fireEvent.click(screen.getByTestId("signup-submit"));

    const prompt = await screen.findByTestId("signup-account-exists");
    expect(prompt.textContent).toContain("already owns an account");
    expect(screen.getByTestId("signup-login-link").getAttribute("href")).toBe("/login?next=%2Fmembers%2F12");
    // The inline form starts with what was typed.
    expect((within(prompt).getByLabelText("Login e-mail") as HTMLInputElement).value).toBe("anna@example.com");
    expect((within(prompt).getByLabelText("Login password") as HTMLInputElement).value).toBe("a-Long-passphrase-42");
    // Nothing typed in the signup form is lost either.
    expect((screen.getByLabelText("E-mail address") as HTMLInputElement).value).toBe("anna@example.com");

    fireEvent.click(screen.getByTestId("signup-login-submit"));
    expect((await screen.findByTestId("signup-login-error")).textContent).toBe("Login failed, please try again");
    fireEvent.click(screen.getByTestId("signup-login-submit"));
    await waitFor(() => expect(assign).toHaveBeenCalledWith("/members/12"));
    expect(server.callsTo("POST", "/api/user.php")[1]!.body).toEqual({
      email: "anna@example.com",
      password: "a-Long-passphrase-42",
    });
  });

  it("guides an account being deleted to reactivation or customer service", async () => {
    server.on("POST", "/api/signup.php", () =>
      apiError(409, "account_deleted", "This e-mail address belongs to an account that is being deleted."),
    );
    renderSignup();
    fillAccount();
    fireEvent.click(screen.getByTestId("signup-submit"));
    const notice = await screen.findByTestId("signup-account-deleted");
    expect(notice.textContent).toContain("is being deleted");
    expect(screen.getByTestId("signup-service-link").getAttribute("href")).toBe("/pages/service");
  });

  it.each([
    ["signups_closed", 403, "Signing up is not possible right now."],
    ["rate_limited", 429, "An error occured, please try again later."],
  ])("shows the %s message", async (code, status, message) => {
    server.on("POST", "/api/signup.php", () => apiError(status, code, message));
    renderSignup();
    fillAccount();
    fireEvent.click(screen.getByTestId("signup-submit"));
    expect((await screen.findByTestId("signup-error")).textContent).toBe(message);
    expect((screen.getByLabelText("Name") as HTMLInputElement).value).toBe("Anna");
    expect(server.calls).toHaveLength(1); // never repeated
  });

  it("tells visitors when signups are closed", () => {
    renderSignup({ signupsOpen: false });
    expect(screen.getByTestId("signup-closed").textContent).toBe("Signing up is not possible right now.");
    expect(screen.queryByTestId("signup-account-form")).toBeNull();
  });
});

describe("step 0 from a profile: the message first", () => {
  const profile = { id: 12, name: "Bella", photo: "/media/s/thumb.jpg" };

  it("asks for the message, keeps it when going back, and sends it with the account", async () => {
    renderSignup({ profile });
    expect(title().textContent).toBe("Write a message to Bella");
    expect(screen.getByTestId("signup-progress").textContent).toBe("Step 1 of 5");
    fireEvent.change(screen.getByLabelText("Your message to Bella"), { target: { value: "Hi Bella!" } });
    fireEvent.click(screen.getByTestId("signup-message-next"));
    expect(title().textContent).toBe("Create your free account");
    expect(document.activeElement).toBe(title());

    fireEvent.click(screen.getByTestId("signup-back"));
    expect((screen.getByLabelText("Your message to Bella") as HTMLTextAreaElement).value).toBe("Hi Bella!");
    fireEvent.click(screen.getByTestId("signup-message-next"));

    await createAccount();
    expect(server.callsTo("POST", "/api/signup.php")[0]!.body).toMatchObject({
      signup_message: "Hi Bella!",
      profile_id: 12,
    });
  });
});

describe("steps 1 to 4", () => {
  it("can skip every step and reaches the confirmation with the e-mail address", async () => {
    server.on("PATCH", "/api/signup/profile.php", () => json(200, { profile: STEP_PROFILE, csrf_token: "t" }));
    renderSignup();
    await createAccount();
    for (const next of ["Where do you live?", "Tell us about yourself", "About me", "Confirm your e-mail address"]) {
      fireEvent.click(screen.getByTestId("signup-skip"));
      expect(title().textContent).toBe(next);
      expect(document.activeElement).toBe(title());
    }
    expect(screen.queryByTestId("signup-progress")).toBeNull();
    expect(screen.getByTestId("signup-confirm-body").textContent).toBe("We have sent a link to anna@example.com.");
    expect(screen.getByTestId("signup-continue").getAttribute("href")).toBe("/signup-matches");
    // Skipping the last step still records that the steps were gone through.
    await waitFor(() => expect(server.callsTo("PATCH", "/api/signup/profile.php")).toHaveLength(1));
    expect(server.callsTo("PATCH", "/api/signup/profile.php")[0]!.body).toEqual({ done: true });
    expect(server.callsTo("PATCH", "/api/signup/profile.php")[0]!.headers.get("X-CSRFToken")).toBe("after-login");
  });

  it("saves location, personal info and about me", async () => {
    server.on("PATCH", "/api/signup/profile.php", (call) =>
      json(200, { profile: { ...STEP_PROFILE, ...(call.body as object) }, csrf_token: "t" }),
    );
    renderSignup();
    await createAccount();
    fireEvent.click(screen.getByTestId("signup-skip")); // no photo

    // The country the server stored is preselected; regions follow the country.
    const country = screen.getByLabelText("Country") as HTMLSelectElement;
    expect(country.value).toBe("FR");
    const regionNames = () => [...(screen.getByLabelText("Region") as HTMLSelectElement).options].map((o) => o.text);
    expect(regionNames()).toEqual(["Choose a region", "Bretagne"]);
    fireEvent.change(country, { target: { value: "GB" } });
    expect(regionNames()).toEqual(["Choose a region", "England", "Scotland"]);
    fireEvent.change(screen.getByLabelText("Region"), { target: { value: "GB-SCT" } });
    fireEvent.change(screen.getByLabelText("City"), { target: { value: "Glasgow" } });
    fireEvent.click(screen.getByTestId("signup-save"));
    await screen.findByRole("heading", { name: "Tell us about yourself" });

    fireEvent.click(screen.getByLabelText("Woman"));
    fireEvent.click(screen.getByLabelText("Bisexual"));
    fireEvent.click(screen.getByTestId("signup-save"));
    await screen.findByRole("heading", { name: "About me" });

    const about = screen.getByLabelText("Describe yourself") as HTMLTextAreaElement;
    expect(about.maxLength).toBe(2000);
    fireEvent.change(about, { target: { value: "I like hiking." } });
    expect(screen.getByText("14 of 2000 characters")).toBeTruthy();
    fireEvent.click(screen.getByTestId("signup-save"));
    await screen.findByRole("heading", { name: "Confirm your e-mail address" });

    expect(server.callsTo("PATCH", "/api/signup/profile.php").map((c) => c.body)).toEqual([
      { country: "GB", region: "GB-SCT", city: "Glasgow" },
      { gender: "female", sexuality: "bi" },
      { about_me: "I like hiking.", done: true },
    ]);
  });

  it("shows a step's field errors under the fields and keeps the values", async () => {
    server.on(
      "PATCH",
      "/api/signup/profile.php",
      () =>
        apiError(400, "invalid", "Please check the fields marked in red.", {
          region: ["Choose a region of the selected country."],
        }),
      (call) => json(200, { profile: { ...STEP_PROFILE, ...(call.body as object) }, csrf_token: "t" }),
    );
    renderSignup();
    await createAccount();
    fireEvent.click(screen.getByTestId("signup-skip"));
    fireEvent.change(screen.getByLabelText("Country"), { target: { value: "GB" } });
    fireEvent.change(screen.getByLabelText("Region"), { target: { value: "GB-ENG" } });
    fireEvent.change(screen.getByLabelText("City"), { target: { value: "Leeds" } });
    fireEvent.click(screen.getByTestId("signup-save"));

    const feedback = await screen.findByTestId("signup-region-feedback");
    expect(feedback.textContent).toBe("Choose a region of the selected country.");
    expect(screen.getByLabelText("Region").classList.contains("is-invalid")).toBe(true);
    expect(title().textContent).toBe("Where do you live?");
    expect((screen.getByLabelText("City") as HTMLInputElement).value).toBe("Leeds");
    expect((screen.getByLabelText("Region") as HTMLSelectElement).value).toBe("GB-ENG");

    fireEvent.click(screen.getByTestId("signup-save"));
    await screen.findByRole("heading", { name: "Tell us about yourself" });
    // Back keeps what was saved.
    fireEvent.click(screen.getByTestId("signup-back"));
    expect((screen.getByLabelText("City") as HTMLInputElement).value).toBe("Leeds");
  });

  it("uploads a photo and shows its thumbnail, or the server's message", async () => {
    server.on(
      "POST",
      "/api/signup/photo.php",
      () => apiError(400, "not_an_image", "This file is not a picture. Upload a JPEG, PNG or WebP photo."),
      () =>
        json(201, {
          photo: { id: 5, status: "pending", thumb_url: "/media/s/photos/thumbs/a.jpg" },
          photo_count: 1,
          photo_limit: 3,
        }),
    );
    renderSignup();
    await createAccount();
    const input = screen.getByLabelText("Choose a photo") as HTMLInputElement;
    expect(input.accept).toBe("image/jpeg,image/png,image/webp");

    fireEvent.change(input, { target: { files: [new File(["<?php"], "me.jpg", { type: "image/jpeg" })] } });
    const feedback = await screen.findByTestId("signup-photo-feedback");
    expect(feedback.textContent).toBe("This file is not a picture. Upload a JPEG, PNG or WebP photo.");
    expect(input.classList.contains("is-invalid")).toBe(true);

    fireEvent.change(input, { target: { files: [new File(["jpeg"], "me.jpg", { type: "image/jpeg" })] } });
    const preview = await screen.findByTestId("signup-photo-preview");
    expect(preview.getAttribute("src")).toBe("/media/s/photos/thumbs/a.jpg");
    expect(preview.getAttribute("alt")).toBe("Your photo");
    expect(screen.getByText("Your photo will be visible once approved.")).toBeTruthy();
    expect(screen.queryByTestId("signup-photo-feedback")).toBeNull();

    const upload = server.callsTo("POST", "/api/signup/photo.php")[1]!;
    expect(upload.body).toBeInstanceOf(FormData);
    expect(((upload.body as FormData).get("photo") as File).name).toBe("me.jpg");
    expect(upload.headers.get("Content-Type")).toBeNull(); // the browser sets the multipart boundary

    // With a photo the step goes on with "Next" rather than "Skip".
    expect(screen.queryByTestId("signup-skip")).toBeNull();
    fireEvent.click(screen.getByTestId("signup-save"));
    expect(title().textContent).toBe("Where do you live?");
  });

  it("shows the photo limit message", async () => {
    const limit = "You can upload up to 3 photos. Become a premium member to upload up to 25.";
    server.on("POST", "/api/signup/photo.php", () => apiError(400, "photo_limit", limit, { photo: [limit] }));
    renderSignup();
    await createAccount();
    fireEvent.change(screen.getByLabelText("Choose a photo"), {
      target: { files: [new File(["jpeg"], "me.jpg", { type: "image/jpeg" })] },
    });
    expect((await screen.findByTestId("signup-photo-feedback")).textContent).toBe(limit);
  });

  it("starts at step 1 on /complete-signup with the member's data", async () => {
    renderSignup({
      startStep: 1,
      user: { email: "anna@example.com", name: "Anna" },
      initial: { ...STEP_PROFILE, city: "Leeds", gender: "female", main_photo: "/media/s/t.jpg" },
    });
    expect(title().textContent).toBe("Add a profile photo");
    expect(screen.getByTestId("signup-progress").textContent).toBe("Step 1 of 4");
    expect(document.activeElement).not.toBe(title()); // no focus jump on page load
    expect(screen.getByTestId("signup-photo-preview").getAttribute("src")).toBe("/media/s/t.jpg");
    fireEvent.click(screen.getByTestId("signup-save"));
    expect((screen.getByLabelText("City") as HTMLInputElement).value).toBe("Leeds");
    expect(screen.getByTestId("signup-progress").textContent).toBe("Step 2 of 4");
  });
});

describe("the final step", () => {
  it("is left out for a member whose address is confirmed already", async () => {
    const assign = vi.spyOn(navigation, "assign").mockImplementation(() => {});
    server.on("PATCH", "/api/signup/profile.php", () => json(200, { profile: STEP_PROFILE, csrf_token: "t" }));
    renderSignup({ startStep: 1, user: { email: "anna@example.com", name: "Anna", confirmed: true } });
    for (let i = 0; i < 4; i++) fireEvent.click(screen.getByTestId("signup-skip"));
    expect(assign).toHaveBeenCalledWith("/signup-matches");
  });

  it("sends the e-mail again and shows the server's message when it is too soon", async () => {
    server.on(
      "POST",
      "/api/signup/resend.php",
      () => json(200, { sent: true }),
      () => apiError(429, "rate_limited", "We have just sent you an e-mail. Please wait a few minutes."),
    );
    server.on("PATCH", "/api/signup/profile.php", () => json(200, { profile: STEP_PROFILE, csrf_token: "t" }));
    renderSignup({ startStep: 1, user: { email: "anna@example.com", name: "Anna" } });
    for (let i = 0; i < 4; i++) fireEvent.click(screen.getByTestId("signup-skip"));
    expect(title().textContent).toBe("Confirm your e-mail address");

    fireEvent.click(screen.getByTestId("signup-resend"));
    expect((await screen.findByTestId("signup-resent")).textContent).toBe("We have sent the e-mail again.");
    fireEvent.click(screen.getByTestId("signup-resend"));
    expect((await screen.findByTestId("signup-resend-error")).textContent).toBe(
      "We have just sent you an e-mail. Please wait a few minutes.",
    );
    expect(server.callsTo("POST", "/api/signup/resend.php")).toHaveLength(2);
  });
});

describe("the push step", () => {
  function stubPush(permission: NotificationPermission = "default") {
    const subscription = {
      toJSON: () => ({ endpoint: "https://push.example/1", keys: { p256dh: "k", auth: "a" } }),
    };
    const registration = {
      pushManager: {
        getSubscription: vi.fn(async () => null),
        subscribe: vi.fn(async (_options: PushSubscriptionOptionsInit) => subscription),
      },
    };
    const serviceWorker = {
      register: vi.fn(async () => registration),
      ready: Promise.resolve(registration),
      addEventListener: vi.fn(),
      removeEventListener: vi.fn(),
    };
    Object.defineProperty(navigator, "serviceWorker", { value: serviceWorker, configurable: true });
    vi.stubGlobal("PushManager", function PushManager() {});
    const requestPermission = vi.fn(async () => "granted" as NotificationPermission);
    vi.stubGlobal("Notification", Object.assign(function Notification() {}, { permission, requestPermission }));
    return { serviceWorker, registration, requestPermission };
  }

  afterEach(() => {
    delete (navigator as { serviceWorker?: unknown }).serviceWorker;
  });

  async function toPushStep(props: Partial<SignupProps>) {
    server.on("PATCH", "/api/signup/profile.php", () => json(200, { profile: STEP_PROFILE, csrf_token: "t" }));
    renderSignup({ startStep: 1, user: { email: "anna@example.com", name: "Anna" }, ...props });
    for (let i = 0; i < 4; i++) fireEvent.click(screen.getByTestId("signup-skip"));
  }

  it("is skipped when the site has no push key", async () => {
    stubPush();
    await toPushStep({ pushPublicKey: "" });
    expect(title().textContent).toBe("Confirm your e-mail address");
  });

  it("is skipped when the browser cannot do push", async () => {
    await toPushStep({ pushPublicKey: "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U" });
    expect(title().textContent).toBe("Confirm your e-mail address");
  });

  it("subscribes with the VAPID key and stores the subscription", async () => {
    const { serviceWorker, registration, requestPermission } = stubPush();
    server.on("POST", "/api/user.php?push=1", () => json(200, { user: USER }));
    const key = "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U";
    await toPushStep({ pushPublicKey: key });
    expect(title().textContent).toBe("Never miss a message");

    fireEvent.click(screen.getByTestId("signup-push-enable"));
    await screen.findByRole("heading", { name: "Confirm your e-mail address" });
    expect(requestPermission).toHaveBeenCalled();
    expect(serviceWorker.register).toHaveBeenCalledWith("/sw.js", { scope: "/" });
    const options = registration.pushManager.subscribe.mock.calls[0]![0];
    expect(options.userVisibleOnly).toBe(true);
    expect(options.applicationServerKey as Uint8Array).toHaveLength(65);
    expect(server.callsTo("POST", "/api/user.php?push=1")[0]!.body).toEqual({
      subscription: { endpoint: "https://push.example/1", keys: { p256dh: "k", auth: "a" } },
    });
    expect(appStore.get().push.subscribed).toBe(true);
  });

  it("says so when the member refuses, and goes on", async () => {
    const { requestPermission } = stubPush();
    requestPermission.mockResolvedValueOnce("denied");
    await toPushStep({ pushPublicKey: "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U" });
    fireEvent.click(screen.getByTestId("signup-push-enable"));
    expect((await screen.findByTestId("signup-push-problem")).textContent).toBe(
      "Notifications are blocked in your browser.",
    );
    fireEvent.click(screen.getByTestId("signup-skip"));
    expect(title().textContent).toBe("Confirm your e-mail address");
  });

  it("is not offered when notifications were blocked before", async () => {
    stubPush("denied");
    await toPushStep({ pushPublicKey: "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U" });
    expect(title().textContent).toBe("Confirm your e-mail address");
  });
});

describe("the signup modal", () => {
  function renderModal(overrides: Partial<SignupProps> = {}) {
    const trigger = document.createElement("a");
    trigger.href = "/signup";
    trigger.setAttribute("data-signup-modal", "");
    trigger.textContent = "Sign up for free";
    document.body.appendChild(trigger);
    const result = render(<Signup {...makeProps({ mode: "modal", ...overrides })} />);
    return { trigger, ...result };
  }
  const modal = () => screen.getByTestId("signup-modal");
  const isOpen = () => (modal() as HTMLDialogElement).open;

  it("stays hidden until an element with data-signup-modal is clicked", () => {
    const { trigger } = renderModal();
    expect(isOpen()).toBe(false);
    const click = new MouseEvent("click", { bubbles: true, cancelable: true, button: 0 });
    act(() => {
      trigger.dispatchEvent(click);
    });
    expect(click.defaultPrevented).toBe(true); // the link's href is only the no-JS fallback
    expect(isOpen()).toBe(true);
    expect(modal().tagName).toBe("DIALOG"); // a native modal dialog (lib/Dialog.tsx)
    expect(screen.getByRole("dialog", { name: "Sign up for free" })).toBe(modal());
    expect(document.getElementById(modal().getAttribute("aria-labelledby")!)!.textContent).toBe("Sign up for free");
    expect(document.activeElement).toBe(title());
    expect(document.documentElement.classList.contains("dialog-open")).toBe(true);
  });

  it("lets a click with a modifier key open the link as usual", () => {
    const { trigger } = renderModal();
    let preventedByTheIsland: boolean | null = null;
    const spy = (event: Event) => {
      preventedByTheIsland = event.defaultPrevented;
      event.preventDefault(); // jsdom cannot navigate
    };
    document.addEventListener("click", spy);
    act(() => {
      trigger.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, button: 0, ctrlKey: true }));
    });
    document.removeEventListener("click", spy);
    expect(preventedByTheIsland).toBe(false);
    expect(isOpen()).toBe(false);
  });

  it("can be closed before the account exists (button, Escape, backdrop), keeping what was typed", () => {
    const { trigger } = renderModal();
    fireEvent.click(trigger);
    fireEvent.change(screen.getByLabelText("E-mail address"), { target: { value: "anna@example.com" } });
    fireEvent.click(screen.getByTestId("signup-modal-close"));
    expect(isOpen()).toBe(false);
    expect(document.activeElement).toBe(trigger);
    expect(document.documentElement.classList.contains("dialog-open")).toBe(false);

    fireEvent.click(trigger);
    expect((screen.getByLabelText("E-mail address") as HTMLInputElement).value).toBe("anna@example.com");
    fireEvent.keyDown(document.activeElement!, { key: "Escape" });
    expect(isOpen()).toBe(false);

    fireEvent.click(trigger);
    fireEvent.click(modal()); // the backdrop area around the dialog
    expect(isOpen()).toBe(false);
  });

  it("cannot be closed by Escape, the backdrop or a button while the signup is in progress", async () => {
    const { trigger } = renderModal();
    fireEvent.click(trigger);
    await createAccount();

    expect(screen.queryByTestId("signup-modal-close")).toBeNull();
    fireEvent.keyDown(document.activeElement!, { key: "Escape" });
    fireEvent.keyDown(document, { key: "Escape" });
    fireEvent.click(modal()); // the backdrop
    expect(isOpen()).toBe(true);
    expect(title().textContent).toBe("Add a profile photo");
    expect(modal().classList.contains("app-dialog-nudge")).toBe(true); // it nudges instead
  });

  it("opens on a signup:open event from another island", () => {
    renderModal();
    act(() => {
      document.dispatchEvent(new Event("signup:open"));
    });
    expect(isOpen()).toBe(true);
  });

  it("closes the date popup with Escape without closing the modal", async () => {
    server.on("POST", "/api/signup.php", () =>
      apiError(400, "invalid", "x", { date_of_birth: [strings.invalidDate] }),
    );
    const { trigger } = renderModal();
    fireEvent.click(trigger);
    fillAccount({ day: "31", month: "2" });
    fireEvent.click(screen.getByTestId("signup-submit"));
    await screen.findByTestId("signup-popup");
    fireEvent.keyDown(screen.getByTestId("signup-popup-ok"), { key: "Escape" });
    expect(screen.queryByTestId("signup-popup")).toBeNull();
    expect(isOpen()).toBe(true);
  });
});

describe("Signup island entry", () => {
  it("mounts itself from the server-rendered mount point and props script", async () => {
    document.body.innerHTML =
      '<div data-island="Signup" id="island-Signup-1"></div>' +
      `<script type="application/json" id="island-Signup-1-props">${JSON.stringify(makeProps())}</script>`;
    await act(async () => {
      await import("../index");
    });
    const mountPoint = document.getElementById("island-Signup-1")!;
    expect(mountPoint.querySelector('[data-testid="signup-step-title"]')!.textContent).toBe(
      "Create your free account",
    );
  });
});
