/**
 * React's hooks for the Chat island's modules. React is a CommonJS package, and esbuild wraps
 * it once in every module that imports it (its own `__toESM(require_react())` and its own name
 * for React's calls). Through this one module the island's modules (the conversation's view
 * and its use*.ts hooks above all) share one wrapper: split into modules, the conversation
 * costs its page next to nothing (docs/decisions.md, "The conversation as hooks"). Types come
 * from "react" itself (they weigh nothing). The dialogs' module (ConversationDialogs.tsx),
 * imported later, keeps its own import: through here it would split off a chunk of its own.
 */
export { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
