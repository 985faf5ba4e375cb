#!/usr/bin/env node
/**
 * The baseline of the `js` benchmark: React 19's own minimum island, bundled with the
 * project's production esbuild options (static_src/build.mjs esbuildOptions: ES module,
 * code splitting, the same targets, minify, automatic JSX, NODE_ENV=production) and the
 * project's own react/react-dom from node_modules.
 *
 *   node bench/js_baseline.mjs OUTDIR      writes the bundle into OUTDIR (made if missing)
 *
 * The island: createRoot on one element and render of one small component.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import * as esbuild from "esbuild";

import { esbuildOptions } from "../static_src/build.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const SOURCE = `import { createRoot } from "react-dom/client";

function Hello({ name }: { name: string }) {
  return <p className="hello">Hello, {name}!</p>;
}

const el = document.getElementById("root");
if (el) createRoot(el).render(<Hello name="world" />);
`;

const outdir = process.argv[2];
if (!outdir) {
  console.error("usage: node bench/js_baseline.mjs OUTDIR");
  process.exit(2);
}
const srcdir = path.join(path.resolve(outdir), "src");
fs.mkdirSync(srcdir, { recursive: true });
const entry = path.join(srcdir, "island.tsx");
fs.writeFileSync(entry, SOURCE);

const options = esbuildOptions([entry]);
await esbuild.build({
  ...options,
  outbase: srcdir,
  outdir: path.join(path.resolve(outdir), "dist"),
  // The project's node_modules: the same react and react-dom versions as the islands.
  nodePaths: [path.join(ROOT, "node_modules")],
});
