/**
 * The show-password buttons of server-rendered forms (templates/partials/password_toggle.html:
 * login, password reset, settings), like the signup island's: each `[data-password-toggle]`
 * shows or hides the field it controls (aria-controls) and says so with aria-pressed. They are
 * rendered hidden, so a page without script shows no button that does nothing.
 */
export function installPasswordToggles(root: ParentNode = document): number {
  let installed = 0;
  for (const button of root.querySelectorAll<HTMLButtonElement>("button[data-password-toggle]")) {
    const field = document.getElementById(button.getAttribute("aria-controls") ?? "");
    if (!(field instanceof HTMLInputElement)) continue;
    button.hidden = false;
    button.addEventListener("click", () => {
      const show = field.type === "password";
      field.type = show ? "text" : "password";
      button.setAttribute("aria-pressed", String(show));
    });
    installed += 1;
  }
  return installed;
}
