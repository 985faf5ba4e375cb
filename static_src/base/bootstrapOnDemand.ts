/**
 * Bootstrap's JS for the server-rendered markup, loaded when the page first needs it.
 *
 * Bootstrap's components (with Popper for the dropdowns) weigh more than everything else the
 * base entry runs, and most page views never open a menu. So the base entry ships
 * none of them: each component is a chunk of its own, imported
 *
 * - when the pointer or the focus reaches a `data-bs-toggle` / `data-bs-dismiss` element
 *   (pointerover, pointerdown, focusin), so it is usually there before the click;
 * - at the latest on the click (or a dropdown's ArrowUp/ArrowDown): that event is held back
 *   (default prevented, propagation stopped) and, once the component is loaded, the same
 *   action is played again on the element (`click()`, or the same key), which Bootstrap's own
 *   data-api handlers then serve as usual;
 * - at once when the markup needs it on load: tabs (their ARIA roles and keyboard), or by
 *   code (`loadBootstrap("toast")` for the autoshown toasts).
 *
 * Bootstrap's modal is not among them: every modal is the one Dialog (lib/Dialog.tsx), so
 * its JS is not built or shipped.
 *
 * A chunk that fails to load rejects unhandled: lib/chunkReload.ts reloads the page.
 */

export type BootstrapComponent = "alert" | "button" | "collapse" | "dropdown" | "offcanvas" | "tab" | "toast";

const LOADERS: Record<BootstrapComponent, () => Promise<unknown>> = {
  alert: () => import("bootstrap/js/dist/alert.js"),
  button: () => import("bootstrap/js/dist/button.js"),
  collapse: () => import("bootstrap/js/dist/collapse.js"),
  dropdown: () => import("bootstrap/js/dist/dropdown.js"),
  offcanvas: () => import("bootstrap/js/dist/offcanvas.js"),
  tab: () => import("bootstrap/js/dist/tab.js"),
  toast: () => import("bootstrap/js/dist/toast.js"),
};

/** `data-bs-toggle` values and the component that serves them. */
const TOGGLES: Record<string, BootstrapComponent> = {
  button: "button",
  collapse: "collapse",
  dropdown: "dropdown",
  list: "tab",
  offcanvas: "offcanvas",
  pill: "tab",
  tab: "tab",
};

/** `data-bs-dismiss` values and the component that serves them. */
const DISMISSES: Record<string, BootstrapComponent> = {
  alert: "alert",
  offcanvas: "offcanvas",
  toast: "toast",
};

const TRIGGER = "[data-bs-toggle],[data-bs-dismiss]";
const TABS = '[data-bs-toggle="tab"],[data-bs-toggle="pill"],[data-bs-toggle="list"]';

const pending = new Map<BootstrapComponent, Promise<unknown>>();
const ready = new Set<BootstrapComponent>();

/** Imports a component once (its data-api handlers register on import); resolves to its module. */
export function loadBootstrap<T = { default: unknown }>(name: BootstrapComponent): Promise<T> {
  let promise = pending.get(name);
  if (!promise) {
    promise = LOADERS[name]().then((module) => {
      ready.add(name);
      return module;
    });
    pending.set(name, promise);
  }
  return promise as Promise<T>;
}

/** Whether the component is loaded (its handlers serve the page's events). */
export function bootstrapReady(name: BootstrapComponent): boolean {
  return ready.has(name);
}

/** The trigger element an event hit and the component it needs, or null. */
export function triggerOf(target: EventTarget | null): { element: HTMLElement; name: BootstrapComponent } | null {
  const element = target instanceof Element ? target.closest<HTMLElement>(TRIGGER) : null;
  if (!element) return null;
  const toggle = element.getAttribute("data-bs-toggle");
  const dismiss = element.getAttribute("data-bs-dismiss");
  const name = (toggle !== null ? TOGGLES[toggle] : undefined) ?? (dismiss !== null ? DISMISSES[dismiss] : undefined);
  return name ? { element, name } : null;
}

type TabModule = { default: { getOrCreateInstance(element: Element): unknown } };

/** Installs the listeners on `doc` and loads what the markup needs on load. */
export function installBootstrapOnDemand(doc: Document = document): void {
  const warm = (event: Event) => {
    const found = triggerOf(event.target);
    if (found && !ready.has(found.name)) void loadBootstrap(found.name);
  };
  for (const type of ["pointerover", "pointerdown", "focusin"]) {
    doc.addEventListener(type, warm, { capture: true, passive: true });
  }

  const hold = (event: Event, replay: (element: HTMLElement) => void) => {
    const found = triggerOf(event.target);
    if (!found || ready.has(found.name)) return; // loaded: Bootstrap's own handlers serve it
    event.preventDefault();
    event.stopImmediatePropagation();
    void loadBootstrap(found.name).then(() => {
      if (found.element.isConnected) replay(found.element);
    });
  };
  doc.addEventListener("click", (event) => hold(event, (element) => element.click()), true);
  doc.addEventListener(
    "keydown",
    (event) => {
      if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
      if (triggerOf(event.target)?.name !== "dropdown") return;
      const { key } = event;
      hold(event, (element) => {
        element.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }));
      });
    },
    true,
  );

  // Tabs get their roles, aria-selected and arrow keys from Bootstrap on load (its window
  // "load" handler, which has run already when the chunk arrives late: done here then).
  if (doc.querySelector(TABS)) {
    void loadBootstrap<TabModule>("tab").then(({ default: Tab }) => {
      for (const element of doc.querySelectorAll(TABS)) {
        if (element.classList.contains("active")) Tab.getOrCreateInstance(element);
      }
    });
  }
}
