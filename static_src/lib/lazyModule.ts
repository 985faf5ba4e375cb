/**
 * A module imported with import() the first time it is needed, once per page: the
 * dialogs and modals that open only later (lib/LazyDialog.tsx, the conversation's dialogs,
 * the match modal, the time bonus's modal). A chunk that fails to load rejects unhandled,
 * and lib/chunkReload.ts reloads the page (a new deployment).
 */
import { useEffect, useState } from "react";

export interface LazyModule<M> {
  /** Imports the module (once) and resolves with it. */
  load: () => Promise<M>;
  /** The module once loaded, null before. */
  loaded: () => M | null;
}

export function lazyModule<M>(importer: () => Promise<M>): LazyModule<M> {
  let loading: Promise<M> | null = null;
  let module: M | null = null;
  return {
    load: () => (loading ??= importer().then((next) => (module = next))),
    loaded: () => module,
  };
}

/** The module, at once when it is already loaded; imported when `needed` (the render that
 * asked for it is not lost: the component renders again once it is there). */
export function useLazyModule<M>(lazy: LazyModule<M>, needed: boolean): M | null {
  const [module, setModule] = useState(lazy.loaded);
  useEffect(() => {
    if (!needed || module) return;
    let live = true;
    void lazy.load().then((next) => live && setModule(() => next));
    return () => {
      live = false;
    };
  }, [needed, module, lazy]);
  return module;
}
