import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { LoginNeeded, type LoginNeededProps } from "../LoginNeeded";

const props: LoginNeededProps = {
  loginUrl: "/login?next=%2Fmembers%2F7",
  signupUrl: "/members/7/signup",
  texts: { like: "Log in or sign up to like this profile.", gift: "Log in or sign up to send a gift." },
  strings: { close: "Close", login: "Login", signup: "Sign up for free" },
};

function page() {
  document.body.innerHTML = "";
  const like = document.createElement("button");
  like.setAttribute("data-login-needed", "like");
  like.textContent = "Like";
  const unknown = document.createElement("button");
  unknown.setAttribute("data-login-needed", "toString");
  unknown.textContent = "Other";
  document.body.append(like, unknown);
  const host = document.createElement("div");
  document.body.append(host);
  render(<LoginNeeded {...props} />, { container: host });
  return { like, unknown };
}

afterEach(() => {
  cleanup();
  document.body.innerHTML = "";
});

describe("LoginNeeded", () => {
  it("renders nothing until a button asks for it", () => {
    page();
    expect(document.querySelector("dialog")).toBeNull();
  });

  it("opens the dialog of the clicked button's key with its text and links, focus inside", () => {
    const { like } = page();
    like.focus();
    act(() => like.click());
    const dialog = screen.getByTestId("login-needed-like");
    expect(dialog).toHaveProperty("open", true);
    expect(screen.getByRole("heading").textContent).toBe(props.texts.like);
    expect(screen.getByRole("link", { name: "Login" }).getAttribute("href")).toBe(props.loginUrl);
    expect(screen.getByRole("link", { name: "Sign up for free" }).getAttribute("href")).toBe(props.signupUrl);
    expect(dialog.contains(document.activeElement)).toBe(true);
  });

  it("closes on Escape and gives focus back to the button", () => {
    const { like } = page();
    like.focus();
    act(() => like.click());
    fireEvent.keyDown(screen.getByTestId("login-needed-like"), { key: "Escape" });
    expect(document.querySelector("dialog")).toBeNull();
    expect(document.activeElement).toBe(like);
  });

  it("keeps its text and test id while it closes, until its closing animation ends", () => {
    const computed = vi.spyOn(window, "getComputedStyle");
    computed.mockImplementation(() => ({ animationName: "app-dialog-out" }) as CSSStyleDeclaration);
    const { like } = page();
    like.focus();
    act(() => like.click());
    const dialog = screen.getByTestId("login-needed-like");
    fireEvent.keyDown(dialog, { key: "Escape" });
    expect(dialog.classList.contains("app-dialog-closing")).toBe(true);
    expect(screen.getByTestId("login-needed-like")).toBe(dialog);
    expect(screen.getByRole("heading").textContent).toBe(props.texts.like);
    act(() => {
      dialog.dispatchEvent(new Event("animationend"));
    });
    expect(document.querySelector("dialog")).toBeNull();
    expect(document.activeElement).toBe(like);
  });

  it("ignores keys without a text (not even inherited object properties)", () => {
    const { unknown } = page();
    act(() => unknown.click());
    expect(document.querySelector("dialog")).toBeNull();
  });
});
