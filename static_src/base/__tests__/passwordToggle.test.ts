import { afterEach, describe, expect, it } from "vitest";

import { installPasswordToggles } from "../passwordToggle";

afterEach(() => {
  document.body.innerHTML = "";
});

describe("installPasswordToggles", () => {
  it("show-password toggle shows and hides its field and says so", () => {
    document.body.innerHTML = `<input type="password" id="login-password">
      <button type="button" data-password-toggle aria-controls="login-password" aria-pressed="false" hidden>Show password</button>`;
    const field = document.getElementById("login-password") as HTMLInputElement;
    const button = document.querySelector("button") as HTMLButtonElement;
    expect(installPasswordToggles()).toBe(1);
    expect(button.hidden).toBe(false);
    button.click();
    expect([field.type, button.getAttribute("aria-pressed")]).toEqual(["text", "true"]);
    button.click();
    expect([field.type, button.getAttribute("aria-pressed")]).toEqual(["password", "false"]);
  });

  it("leaves a button without its field hidden", () => {
    document.body.innerHTML = `<button type="button" data-password-toggle aria-controls="nope" hidden>Show</button>`;
    expect(installPasswordToggles()).toBe(0);
    expect((document.querySelector("button") as HTMLButtonElement).hidden).toBe(true);
  });
});
