/**
 * The profile page's "log in or sign up" dialogs (spec §2 profile page, visitors only).
 *
 * The server renders the action buttons (message, like, gift, more photos) with
 * `data-login-needed="<key>"` and this island with one text per key. A click on such a
 * button opens the one Dialog (lib/Dialog.tsx) with that key's text and the login and signup
 * links; focus goes back to the button on close. Buttons whose key has no text stay inert.
 * While it closes (its animation) it keeps its text and test id.
 */
import { useEffect, useState } from "react";

import { Dialog } from "../../lib/Dialog";

export interface LoginNeededProps {
  loginUrl: string;
  signupUrl: string;
  /** The dialog's text per button key. */
  texts: Record<string, string>;
  strings: { close: string; login: string; signup: string };
}

export const TRIGGER_ATTRIBUTE = "data-login-needed";

export function LoginNeeded({ loginUrl, signupUrl, texts, strings }: LoginNeededProps) {
  // The last key stays while the dialog closes (its closing animation shows the same text).
  const [key, setKey] = useState<string | null>(null);
  const [open, setOpen] = useState(false);

  // One listener on the document: the buttons are server-rendered outside the island.
  useEffect(() => {
    const onClick = (event: MouseEvent) => {
      const button = event.target instanceof Element ? event.target.closest(`[${TRIGGER_ATTRIBUTE}]`) : null;
      const wanted = button?.getAttribute(TRIGGER_ATTRIBUTE);
      if (!wanted || !Object.hasOwn(texts, wanted)) return;
      event.preventDefault();
      setKey(wanted);
      setOpen(true);
    };
    document.addEventListener("click", onClick);
    return () => document.removeEventListener("click", onClick);
  }, [texts]);

  const text = key !== null ? texts[key] : undefined;
  return (
    <Dialog
      open={open && text !== undefined}
      onClose={() => setOpen(false)}
      title={text ?? ""}
      closeLabel={strings.close}
      size="sm"
      testId={key !== null ? `login-needed-${key}` : undefined}
      closeTestId="login-needed-close"
      footer={
        <>
          <a className="btn btn-outline-primary" href={loginUrl} data-testid="login-needed-login">
            {strings.login}
          </a>
          <a className="btn btn-primary" href={signupUrl} data-testid="login-needed-signup">
            {strings.signup}
          </a>
        </>
      }
    />
  );
}
