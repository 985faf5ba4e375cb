/**
 * lib/Dialog.tsx for islands whose dialog opens only later (on a click, a live event, a
 * timer, an answer of the server): the same component and props, but its module is
 * imported with import() the first time the dialog is to open (or is to stay mounted,
 * `keepMounted`), so pages where it never opens do not load it. The dialog shows once the
 * module is there; the open that asked for it is not lost. Once loaded it renders at once.
 */
import type { DialogProps } from "./Dialog";
import { lazyModule, useLazyModule } from "./lazyModule";

/** lib/Dialog.tsx, through lib/dialogLater.ts. */
const dialog = lazyModule(() => import("./dialogLater"));

export const loadDialog = dialog.load;

export function Dialog(props: DialogProps) {
  const module = useLazyModule(dialog, props.open || Boolean(props.keepMounted));
  return module ? <module.Dialog {...props} /> : null;
}
