/**
 * lib/Dialog.tsx as lib/LazyDialog.tsx imports it with import(). Dialog.tsx itself is also
 * imported statically by islands whose dialog opens on load, so it must not be the target of
 * an import() (static_src/build.mjs, "islands-import-base"): this module is, and only that.
 * It imports lib/mount.tsx (React's chunk, on every island page) as the islands' modules
 * loaded later do, so that React's JSX runtime stays in that chunk.
 */
import "./mount";

export { Dialog } from "./Dialog";
