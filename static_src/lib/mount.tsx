/**
 * Mounting of server-rendered islands. The Django template tag renders:
 *
 *   <div data-island="EntryWarning" id="island-EntryWarning-1"></div>
 *   <script type="application/json" id="island-EntryWarning-1-props">{...props...}</script>
 *   <script type="module" src="/static/dist/islands/EntryWarning/index-HASH.js"></script>
 *
 * and every island's index.tsx ends with mountIsland("EntryWarning", EntryWarning).
 */
import { StrictMode, type ComponentType } from "react";
import { createRoot, type Root } from "react-dom/client";

/** Every island receives its UI text, already translated by the server, in props.strings. */
export interface IslandProps {
  strings: Record<string, string>;
}

export const MOUNTED_ATTRIBUTE = "data-island-mounted";

/** Reads and parses the JSON props script of a mount point; null (and a console error) when it is missing or broken. */
export function readIslandProps(el: Element, doc: Document = el.ownerDocument): Record<string, unknown> | null {
  const scriptId = `${el.id}-props`;
  const script = el.id ? doc.getElementById(scriptId) : null;
  if (!script) {
    console.error(`Island ${el.getAttribute("data-island")}: no props script #${scriptId}`);
    return null;
  }
  try {
    const props: unknown = JSON.parse(script.textContent || "{}");
    if (typeof props !== "object" || props === null || Array.isArray(props)) throw new TypeError("props must be an object");
    return props as Record<string, unknown>;
  } catch (err) {
    console.error(`Island ${el.getAttribute("data-island")}: invalid props in #${scriptId}`, err);
    return null;
  }
}

function mountNow<P extends object>(name: string, Component: ComponentType<P>, doc: Document): Root[] {
  const roots: Root[] = [];
  for (const el of doc.querySelectorAll<HTMLElement>("[data-island]")) {
    if (el.getAttribute("data-island") !== name || el.hasAttribute(MOUNTED_ATTRIBUTE)) continue;
    const props = readIslandProps(el, doc);
    if (!props) continue;
    if (typeof props.strings !== "object" || props.strings === null) props.strings = {};
    el.setAttribute(MOUNTED_ATTRIBUTE, "");
    const root = createRoot(el, { identifierPrefix: `${el.id}-` });
    root.render(
      <StrictMode>
        <Component {...(props as P)} />
      </StrictMode>,
    );
    roots.push(root);
  }
  return roots;
}

/**
 * Renders Component into every `[data-island=name]` element of the page that is not mounted
 * yet, with the props from the JSON script `#<element id>-props`. Returns the new roots.
 * Module scripts run after parsing, but if called while the document is still loading it
 * waits for DOMContentLoaded (and then returns no roots).
 */
export function mountIsland<P extends object>(name: string, Component: ComponentType<P>, doc: Document = document): Root[] {
  if (doc.readyState === "loading") {
    doc.addEventListener("DOMContentLoaded", () => mountNow(name, Component, doc), { once: true });
    return [];
  }
  return mountNow(name, Component, doc);
}
