/**
 * React's hooks for the conversation's modules (Conversation.tsx and its use*.ts hooks). React is
 * a CommonJS package, and esbuild wraps it once in every module that imports it (its own
 * `__toESM(require_react())` and its own name for React's calls). Through this one module the
 * conversation's seven modules share one wrapper, so its page weighs what it did as one file
 * (docs/decisions.md, "The conversation as hooks").
 */
export { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
