/**
 * lib/Dialog.tsx for islands whose dialog opens only later (on a click, a live event, a
 * timer, an answer of the server): the same component and props, but its module is
 * imported with import() the first time the dialog is to open (or is to stay mounted,
 * `keepMounted`), so pages where it never opens do not load it. The dialog shows once the
 * module is there; the open that asked for it is not lost. Once loaded it renders at once.
 */
import { useEffect, useState } from "react";

import type { DialogProps } from "./Dialog";

type DialogModule = typeof import("./dialogLater");

let loaded: DialogModule | null = null;
let loading: Promise<DialogModule> | null = null;

/** Imports lib/Dialog.tsx once (through lib/dialogLater.ts). A chunk that fails to load rejects unhandled, and
 * lib/chunkReload.ts reloads the page (a new deployment). */
export function loadDialog(): Promise<DialogModule> {
  loading ??= import("./dialogLater").then((module) => (loaded = module));
  return loading;
}

export function Dialog(props: DialogProps) {
  const [module, setModule] = useState(loaded);
  const needed = props.open || Boolean(props.keepMounted);
  useEffect(() => {
    if (!needed || module) return;
    let live = true;
    void loadDialog().then((next) => live && setModule(next));
    return () => {
      live = false;
    };
  }, [needed, module]);
  return module ? <module.Dialog {...props} /> : null;
}
