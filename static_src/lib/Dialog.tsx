/**
 * The one modal dialog of the islands (docs/frontend.md "Dialogs"), on the native <dialog>
 * element opened with showModal(): the browser puts it in the top layer and makes the rest
 * of the page inert.
 *
 * - Focus moves in (to `initialFocus`, else the first focusable element, else the dialog),
 *   Tab and Shift+Tab cycle inside it, and on close focus goes back to `returnFocus` or to
 *   the element that had it before.
 * - Escape and a click on the backdrop close it only where the dialog allows it
 *   (`closeOnEscape`, `closeOnBackdrop`); otherwise it nudges (a short scale) and stays.
 * - Labelled by its title (aria-labelledby), optionally described (aria-describedby).
 * - Without children it has no body: the title (the whole message) and the footer only.
 * - The page behind does not scroll while a dialog is open (class dialog-open on <html>).
 * - Opens and closes with a short animation, none when the visitor prefers reduced motion.
 *
 * Controlled: the island owns `open` and sets it to false in `onClose`. While closed the
 * dialog renders nothing, unless `keepMounted` keeps its content (and state) in the page.
 */
import {
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type MouseEvent,
  type ReactNode,
  type RefObject,
} from "react";

import { prefersReducedMotion } from "./motion";

export interface DialogProps {
  open: boolean;
  /** Asked to close: the close button, or Escape / the backdrop where allowed. */
  onClose: () => void;
  title: ReactNode;
  children?: ReactNode;
  footer?: ReactNode;
  /** The close button's accessible name (and tooltip); no close button without it. */
  closeLabel?: string;
  /** Escape closes the dialog (default true); otherwise it nudges. */
  closeOnEscape?: boolean;
  /** A click on the backdrop closes the dialog (default true); otherwise it nudges. */
  closeOnBackdrop?: boolean;
  /** Any click, inside the dialog too, closes it (the match modal, spec §2). */
  closeOnAnyClick?: boolean;
  /** Where focus goes on open: a ref or a CSS selector inside the dialog. */
  initialFocus?: RefObject<HTMLElement | null> | string;
  /** Where focus goes on close (default: the element that had it before opening). */
  returnFocus?: RefObject<HTMLElement | null>;
  /** Id(s) of the text that describes the dialog. */
  describedBy?: string;
  role?: "dialog" | "alertdialog";
  size?: "sm" | "lg";
  /** Full screen on phones (below sm) instead of the bottom sheet. */
  fullscreenOnPhone?: boolean;
  /** The content stays rendered (and keeps its state) while closed. */
  keepMounted?: boolean;
  className?: string;
  headerClassName?: string;
  titleClassName?: string;
  bodyClassName?: string;
  footerClassName?: string;
  testId?: string;
  closeTestId?: string;
}

/** How long a refused Escape or backdrop click nudges the dialog. */
export const NUDGE_MS = 300;
/** The longest a closing animation is waited for. */
export const CLOSE_FALLBACK_MS = 400;

const FOCUSABLE = [
  "a[href]",
  "area[href]",
  "button:not([disabled])",
  "input:not([disabled]):not([type=hidden])",
  "select:not([disabled])",
  "textarea:not([disabled])",
  "iframe",
  "audio[controls]",
  "video[controls]",
  "summary",
  "[contenteditable]:not([contenteditable=false])",
  "[tabindex]",
].join(",");

function visible(el: HTMLElement): boolean {
  // jsdom has no layout (and no checkVisibility): everything not hidden counts as visible.
  return typeof el.checkVisibility !== "function" || el.checkVisibility({ visibilityProperty: true });
}

/** The elements Tab reaches inside `dialog`, in order (not those of a dialog inside it). */
export function tabbables(dialog: HTMLElement): HTMLElement[] {
  const checkedRadios = new Set<string>();
  for (const radio of dialog.querySelectorAll<HTMLInputElement>("input[type=radio]:checked")) {
    checkedRadios.add(radio.name);
  }
  const seenRadios = new Set<string>();
  return [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => {
    if (el.tabIndex < 0 || el.closest("[hidden], [inert]") || el.closest("dialog") !== dialog || !visible(el)) {
      return false;
    }
    // A radio group is one Tab stop: its checked radio, else its first.
    if (el instanceof HTMLInputElement && el.type === "radio" && el.name) {
      if (checkedRadios.has(el.name)) return el.checked;
      if (seenRadios.has(el.name)) return false;
      seenRadios.add(el.name);
    }
    return true;
  });
}

let scrollLocks = 0;

/** The page behind the dialog does not scroll; nested dialogs count. */
function lockScroll(): void {
  scrollLocks += 1;
  if (scrollLocks > 1) return;
  const root = document.documentElement;
  // Keep the scrollbar's room, so the page does not shift sideways (see _components.scss).
  const scrollbar = root.clientWidth > 0 && window.innerWidth > root.clientWidth;
  root.classList.add("dialog-open");
  if (scrollbar) root.classList.add("dialog-open-gutter");
}

function unlockScroll(): void {
  if (scrollLocks === 0) return;
  scrollLocks -= 1;
  if (scrollLocks === 0) document.documentElement.classList.remove("dialog-open", "dialog-open-gutter");
}

function ownerDialog(target: EventTarget | null): Element | null {
  return target instanceof Element ? target.closest("dialog") : null;
}

/** Whether the dialog has a body: without content, none (no empty gap between title and footer). */
export function hasContent(children: ReactNode): boolean {
  return children !== undefined && children !== null && children !== false && children !== "";
}

function classes(...names: (string | false | null | undefined)[]): string {
  return names.filter(Boolean).join(" ");
}

export function Dialog({
  open,
  onClose,
  title,
  children,
  footer,
  closeLabel,
  closeOnEscape = true,
  closeOnBackdrop = true,
  closeOnAnyClick = false,
  initialFocus,
  returnFocus,
  describedBy,
  role,
  size,
  fullscreenOnPhone = false,
  keepMounted = false,
  className,
  headerClassName,
  titleClassName,
  bodyClassName,
  footerClassName,
  testId,
  closeTestId,
}: DialogProps) {
  const titleId = useId();
  const ref = useRef<HTMLDialogElement>(null);
  const [closing, setClosing] = useState(false);
  const [wasOpen, setWasOpen] = useState(open);
  const [nudged, setNudged] = useState(false);
  // Where the last press began: a drag from inside to the backdrop is not a backdrop click.
  const pressedOnDialog = useRef<boolean | null>(null);
  const focusBack = useRef<HTMLElement | null>(null);

  // Closing (with its animation) starts in the render where `open` turns false.
  if (open !== wasOpen) {
    setWasOpen(open);
    setClosing(!open);
  }
  const active = open || closing;

  // The latest props, for the listeners and effects that must not re-run on each render.
  const latest = useRef({ onClose, closeOnEscape, closeOnBackdrop, initialFocus, returnFocus });
  latest.current = { onClose, closeOnEscape, closeOnBackdrop, initialFocus, returnFocus };

  const focusInitial = useCallback(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const wanted = latest.current.initialFocus;
    let target: HTMLElement | null = null;
    if (typeof wanted === "string") target = dialog.querySelector<HTMLElement>(wanted);
    else if (wanted) target = wanted.current;
    (target ?? tabbables(dialog)[0] ?? dialog).focus();
  }, []);

  const nudge = useCallback(() => setNudged(true), []);

  const dismiss = useCallback(
    (how: "escape" | "backdrop") => {
      const { onClose: close, closeOnEscape: escape, closeOnBackdrop: backdrop } = latest.current;
      if (how === "escape" ? escape : backdrop) close();
      else nudge();
    },
    [nudge],
  );

  // Open: showModal, lock the page's scrolling, move focus in. Close (or unmount): undo all
  // of that and give focus back.
  //
  // Close requests the keyboard handler does not see (Android's back gesture, ...) come as a
  // cancel event; when the browser closes the dialog anyway, it is shown again if it may not
  // close. These listeners go before the dialog is closed here, so that close is not taken
  // for the browser's.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!active || !dialog) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const onCancel = (event: Event) => {
      event.preventDefault();
      dismiss("escape");
    };
    const onNativeClose = () => {
      if (dialog.open || !dialog.isConnected) return;
      if (latest.current.closeOnEscape) {
        latest.current.onClose();
      } else {
        dialog.showModal();
        focusInitial();
      }
    };
    dialog.addEventListener("cancel", onCancel);
    dialog.addEventListener("close", onNativeClose);
    if (!dialog.open) dialog.showModal();
    lockScroll();
    focusInitial();
    return () => {
      dialog.removeEventListener("cancel", onCancel);
      dialog.removeEventListener("close", onNativeClose);
      if (dialog.open) dialog.close();
      unlockScroll();
      const back = latest.current.returnFocus?.current ?? previous;
      if (back?.isConnected && back !== document.body) back.focus();
      focusBack.current = back;
    };
  }, [active, focusInitial, dismiss]);

  // This cleanup runs inside React's commit, which afterwards puts focus back on the element
  // that had it when the commit began, if that is still in the page (a kept-mounted dialog's
  // content): give focus back once more after the commit.
  useLayoutEffect(() => {
    const back = focusBack.current;
    focusBack.current = null;
    if (!active && back?.isConnected && document.activeElement !== back) back.focus();
  }, [active]);

  // The closing animation, then the real close (at once without an animation).
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!closing) return;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      setClosing(false);
    };
    // The dialog's own animation (or its ::backdrop's), not one inside it.
    const onAnimationEnd = (event: Event) => {
      if (event.target === dialog) finish();
    };
    if (!dialog || !dialog.open || prefersReducedMotion()) return finish();
    const animation = getComputedStyle(dialog).animationName;
    if (!animation || animation === "none") return finish();
    dialog.addEventListener("animationend", onAnimationEnd);
    const timer = setTimeout(finish, CLOSE_FALLBACK_MS);
    return () => {
      dialog.removeEventListener("animationend", onAnimationEnd);
      clearTimeout(timer);
    };
  }, [closing]);

  useEffect(() => {
    if (!nudged) return;
    const timer = setTimeout(() => setNudged(false), NUDGE_MS);
    return () => clearTimeout(timer);
  }, [nudged]);

  if (!active && !keepMounted) return null;

  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    const dialog = ref.current;
    if (!dialog || !dialog.open || ownerDialog(event.target) !== dialog) return;
    if (event.key === "Escape") {
      // Cancelling the keydown keeps the browser from closing the dialog by itself.
      event.preventDefault();
      event.stopPropagation();
      if (!event.nativeEvent.isComposing) dismiss("escape");
      return;
    }
    if (event.key !== "Tab" || event.altKey || event.ctrlKey || event.metaKey) return;
    const items = tabbables(dialog);
    const first = items[0];
    const last = items[items.length - 1];
    const current = document.activeElement;
    if (!first || !last) {
      event.preventDefault();
      dialog.focus();
    } else if (event.shiftKey && (current === first || current === dialog || !dialog.contains(current))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (current === last || !dialog.contains(current))) {
      event.preventDefault();
      first.focus();
    }
  };

  const onMouseDown = (event: MouseEvent<HTMLDialogElement>) => {
    pressedOnDialog.current = event.target === ref.current;
  };

  const onClick = (event: MouseEvent<HTMLDialogElement>) => {
    const dialog = ref.current;
    const pressed = pressedOnDialog.current;
    pressedOnDialog.current = null;
    if (!dialog || !dialog.open || closing) return;
    if (closeOnAnyClick && ownerDialog(event.target) === dialog) {
      onClose();
      return;
    }
    // The content fills the dialog: a click on the dialog itself is on its ::backdrop.
    if (event.target !== dialog || pressed === false) return;
    const box = dialog.getBoundingClientRect();
    const inside =
      box.width > 0 &&
      event.clientX >= box.left &&
      event.clientX <= box.right &&
      event.clientY >= box.top &&
      event.clientY <= box.bottom;
    if (!inside) dismiss("backdrop");
  };

  return (
    <dialog
      ref={ref}
      className={classes(
        "app-dialog",
        size && `app-dialog-${size}`,
        fullscreenOnPhone && "app-dialog-fullscreen-phone",
        nudged && "app-dialog-nudge",
        closing && "app-dialog-closing",
        className,
      )}
      role={role === "alertdialog" ? "alertdialog" : undefined}
      aria-labelledby={titleId}
      aria-describedby={describedBy}
      tabIndex={-1}
      onKeyDown={onKeyDown}
      onMouseDown={onMouseDown}
      onClick={onClick}
      data-testid={testId}
    >
      <div className="modal-content">
        <div className={classes("modal-header", headerClassName)}>
          <h2 className={classes("modal-title h5", titleClassName)} id={titleId}>
            {title}
          </h2>
          {closeLabel && (
            <button
              type="button"
              className="btn-close app-dialog-close"
              aria-label={closeLabel}
              title={closeLabel}
              onClick={(event) => {
                event.stopPropagation();
                onClose();
              }}
              data-testid={closeTestId}
            />
          )}
        </div>
        {hasContent(children) && <div className={classes("modal-body", bodyClassName)}>{children}</div>}
        {footer && <div className={classes("modal-footer", footerClassName)}>{footer}</div>}
      </div>
    </dialog>
  );
}
