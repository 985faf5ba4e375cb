#!/usr/bin/env node
/**
 * Front-end asset pipeline.
 *
 *   node static_src/build.mjs            one-shot production build (minified), exit 1 on errors
 *   node static_src/build.mjs --watch    development: rebuild JS and SCSS on change
 *
 * JS: esbuild bundles static_src/base/index.ts and every static_src/islands/<Name>/index.tsx
 * as ES modules with code splitting and content-hashed names into static/dist/.
 * CSS: static_src/scss/main.scss is compiled with the sass JS API to static/dist/main-<hash>.css.
 * Then static/dist/manifest.json maps entries to files (see docs/frontend.md):
 *
 *   {"base": {"file": "base/index-HASH.js", "imports": ["chunks/chunk-HASH.js"]},
 *    "islands": {"EntryWarning": {"file": "islands/EntryWarning/index-HASH.js", "imports": [...]}},
 *    "css": {"main": "main-HASH.css"}}
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import * as esbuild from "esbuild";
import * as sass from "sass";

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, "..");
const SRC = path.join(ROOT, "static_src");
const OUT = path.join(ROOT, "static", "dist");
const SCSS_DIR = path.join(SRC, "scss");
const SCSS_ENTRY = path.join(SCSS_DIR, "main.scss");
const MANIFEST = path.join(OUT, "manifest.json");

const watch = process.argv.includes("--watch");
const production = !watch;

const rel = (p) => path.relative(ROOT, p).split(path.sep).join("/");
const time = () => new Date().toTimeString().slice(0, 8);
const log = (msg) => console.log(`[${time()}] ${msg}`);

/**
 * static_src/base/index.ts plus every static_src/islands/<Name>/index.tsx, and an island's
 * variants, static_src/islands/<Name>/index.<variant>.tsx: the same island (it mounts as
 * "<Name>") with only the code one kind of page needs, e.g. Chat's list page without the
 * conversation (manifest key "<Name>.<variant>", `{% island "<Name>" props variant="..." %}`).
 */
function findEntries() {
  const entries = [path.join(SRC, "base", "index.ts")];
  const islandsDir = path.join(SRC, "islands");
  if (fs.existsSync(islandsDir)) {
    for (const dirent of fs.readdirSync(islandsDir, { withFileTypes: true })) {
      if (!dirent.isDirectory()) continue;
      if (!/^[A-Z][A-Za-z0-9]*$/.test(dirent.name)) {
        throw new Error(`island folder "${dirent.name}" must be PascalCase (letters and digits)`);
      }
      const entry = path.join(islandsDir, dirent.name, "index.tsx");
      if (!fs.existsSync(entry)) continue;
      entries.push(entry);
      for (const file of fs.readdirSync(path.join(islandsDir, dirent.name))) {
        if (ISLAND_VARIANT.test(file)) entries.push(path.join(islandsDir, dirent.name, file));
      }
    }
  }
  return entries.sort();
}

/**
 * Every island entry imports the base entry first (prepended on line 1, so the island's own
 * lines keep their numbers). The base entry is on every page that has an island, so this
 * changes nothing that runs: a module runs once per page. But esbuild splits code into one
 * chunk per set of entries that reach it, and with the base reached by every entry, the base's
 * code, the shared libs and React land in one chunk instead of many small ones, each of which
 * was compressed alone: about 2 KB gzip less per island page (docs/bench.md, "js").
 *
 * The same goes for the code our modules load later with import() (base/member.ts for a
 * logged-in member, the photo viewer, the chat's dialogs...): every module of static_src that
 * is the target of an import() imports the base entry first too. Those modules use the base's
 * libs, React and the shared components, and without the base import the modules they share
 * with the base and the islands would leave their chunks for new small ones. Such a module
 * under islands/ (only ever loaded by an island) also imports lib/mount.tsx, React's chunk
 * (react-dom, the JSX runtime), for the same reason. (A module that
 * is also imported statically may be loaded before its import() is seen: keep such modules
 * out of import(), or import them only with import().)
 */
const BASE_ENTRY = path.join(SRC, "base", "index.ts");
const ISLAND_VARIANT = /^index\.[a-z]+\.tsx$/;
const ISLAND_ENTRY = /[\\/]static_src[\\/]islands[\\/][A-Z][A-Za-z0-9]*[\\/]index(\.[a-z]+)?\.tsx$/;
const MOUNT = path.join(SRC, "lib", "mount.tsx");
/** `import "<file>";` relative to `from` ("../../base/index.ts"): source maps carry no build machine's path. */
const importOf = (from, file) =>
  `import ${JSON.stringify(`./${path.relative(path.dirname(from), file).split(path.sep).join("/")}`)};`;
const islandsImportBase = {
  name: "islands-import-base",
  setup(build) {
    const later = new Set(); // files of static_src that are the target of an import()
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.kind !== "dynamic-import" || args.pluginData?.islandsImportBase || !args.importer.startsWith(SRC)) return undefined;
      const { path: resolved, errors } = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: { islandsImportBase: true },
      });
      if (!errors.length && resolved.startsWith(SRC + path.sep)) later.add(resolved);
      return undefined; // resolved as usual
    });
    // A package's module loaded with import() (Bootstrap's components, base/bootstrapOnDemand.ts)
    // comes through a wrapper that imports the base entry first and re-exports its default.
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.kind !== "dynamic-import" || !args.importer.startsWith(SRC)) return undefined;
      return { path: args.path, namespace: "import-base" };
    });
    build.onLoad({ filter: /.*/, namespace: "import-base" }, (args) => ({
      contents: `import "./index.ts";export { default } from ${JSON.stringify(args.path)};`,
      loader: "js",
      resolveDir: path.dirname(BASE_ENTRY),
    }));
    build.onLoad({ filter: /[\\/]static_src[\\/].*\.tsx?$/ }, async (args) => {
      const entry = ISLAND_ENTRY.test(args.path);
      if (!entry && !later.has(args.path)) return undefined;
      const islandLater = !entry && args.path.startsWith(path.join(SRC, "islands") + path.sep);
      return {
        // On line 1, so the module's own lines keep their numbers.
        contents: `${importOf(args.path, BASE_ENTRY)}${islandLater ? importOf(args.path, MOUNT) : ""}${await fs.promises.readFile(args.path, "utf8")}`,
        loader: args.path.endsWith(".tsx") ? "tsx" : "ts",
        resolveDir: path.dirname(args.path),
        watchFiles: [args.path],
      };
    });
  },
};

/**
 * Own copies, for an island that is alone on its pages (the chat's two pages carry the Chat
 * island and nothing else). esbuild puts a module in one chunk per set of entries (and
 * import() targets) that reach it, and each chunk is a file of its own, compressed alone: the
 * conversation's entry pulled in eight files, five of them under 0.5 KiB gzip, because the
 * list page's entry, the dialogs loaded later or another island reached the same modules.
 *
 * So each "root" of such an island, every entry (index.tsx, index.<variant>.tsx) and every
 * module of the island that is the target of an import(), is bundled with its own copy of
 * the island's modules (islands/<Name>/*) and of the listed modules of lib/, and what an
 * entry's first render needs is one file with it. Only one entry of an island is on a page;
 * a module loaded later brings its own copy of what it shares with the entry (format.ts for
 * the gift and report dialogs), a few hundred bytes when it is first used. A listed lib module
 * must be safe in two copies on one page: components and pure functions, or
 * lib/realtimeLater.ts, whose state is only its import of lib/realtime.ts (shared, one
 * connection per page whoever asks). Modules with state of their own (the store, the API,
 * lib/chats.ts, lib/outbox.ts) stay shared. docs/frontend.md, "Own copies"; docs/bench.md, "js".
 */
export const OWN_COPIES = {
  Chat: [
    "lib/gifts.tsx",
    "lib/badgeLabel.ts",
    "lib/EmptyState.tsx",
    "lib/silhouette.tsx",
    "lib/lazyModule.ts",
    "lib/realtimeLater.ts",
  ],
};
const ownCopies = {
  name: "own-copies",
  setup(build) {
    const islandOf = (file) => {
      const [top, name, ...rest] = path.relative(SRC, file).split(path.sep);
      return top === "islands" && rest.length && Object.hasOwn(OWN_COPIES, name) ? name : null;
    };
    const listed = Object.fromEntries(
      Object.entries(OWN_COPIES).map(([name, libs]) => [name, new Set(libs.map((lib) => path.join(SRC, lib)))]),
    );
    build.onResolve({ filter: /^\./ }, async (args) => {
      if (args.kind !== "import-statement" || args.pluginData?.ownCopies) return undefined;
      // The root whose copy the importer is (onLoad below says), else the importer itself when
      // it is a file of such an island: only its roots are loaded as themselves.
      const own = args.namespace === "file" && islandOf(args.importer);
      const root = args.pluginData?.ownRoot ?? (own ? path.relative(SRC, args.importer) : null);
      if (root === null) return undefined;
      const island = islandOf(path.join(SRC, root));
      const { path: resolved, errors } = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: { ownCopies: true },
      });
      if (errors.length || ISLAND_ENTRY.test(resolved)) return undefined;
      if (islandOf(resolved) !== island && !listed[island].has(resolved)) return undefined;
      // The same file with another suffix is another module for esbuild (its source map names the file).
      return { path: resolved, suffix: `?copy-of=${root.split(path.sep).join("/")}`, pluginData: { ownRoot: root } };
    });
    build.onLoad({ filter: /\.tsx?$/ }, async (args) => {
      if (!args.suffix.startsWith("?copy-of=")) return undefined;
      return {
        contents: await fs.promises.readFile(args.path, "utf8"),
        loader: args.path.endsWith(".tsx") ? "tsx" : "ts",
        resolveDir: path.dirname(args.path),
        pluginData: { ownRoot: args.pluginData.ownRoot },
        watchFiles: [args.path],
      };
    });
  },
};

/** The production (or watch) esbuild options of the islands; bench/js_baseline.mjs uses them too. */
export function esbuildOptions(entryPoints) {
  return {
    absWorkingDir: ROOT,
    entryPoints,
    outbase: SRC,
    outdir: OUT,
    entryNames: "[dir]/[name]-[hash]",
    chunkNames: "chunks/[name]-[hash]",
    assetNames: "assets/[name]-[hash]",
    bundle: true,
    format: "esm",
    splitting: true,
    platform: "browser",
    // Phones: Safari 15+ and recent Chromium/Firefox all run native ES modules.
    target: ["es2020", "chrome93", "edge93", "firefox91", "safari15"],
    minify: production,
    sourcemap: true,
    metafile: true,
    write: true,
    jsx: "automatic",
    legalComments: production ? "linked" : "none",
    define: { "process.env.NODE_ENV": JSON.stringify(production ? "production" : "development") },
    plugins: [ownCopies, islandsImportBase],
    logLevel: "warning",
  };
}

/**
 * The push service worker (static_src/sw/sw.ts) as one classic script with a fixed name,
 * static/dist/sw.js: the server serves it at /sw.js, and a worker's URL must not change
 * between deployments. Not in the manifest.
 */
const SW_ENTRY = path.join(SRC, "sw", "sw.ts");
const SW_OUT = path.join(OUT, "sw.js");

function serviceWorkerOptions() {
  return {
    absWorkingDir: ROOT,
    entryPoints: [SW_ENTRY],
    outfile: SW_OUT,
    bundle: true,
    format: "iife",
    platform: "browser",
    target: ["es2020", "chrome93", "edge93", "firefox91", "safari15"],
    minify: production,
    sourcemap: true,
    write: true,
    legalComments: "none",
    logLevel: "warning",
  };
}

/** Turns esbuild's metafile into the "base" and "islands" parts of the manifest. */
export function manifestFromMetafile(metafile) {
  const outputs = metafile.outputs;
  const toDist = (p) => path.relative(OUT, path.resolve(ROOT, p)).split(path.sep).join("/");

  const staticImports = (outPath) => {
    const seen = new Set();
    const order = [];
    const visit = (p) => {
      for (const imp of outputs[p]?.imports ?? []) {
        if (imp.kind !== "import-statement" || imp.external || seen.has(imp.path)) continue;
        seen.add(imp.path);
        order.push(imp.path);
        visit(imp.path);
      }
    };
    visit(outPath);
    return order.map(toDist);
  };

  let base = null;
  const islands = {};
  for (const [outPath, output] of Object.entries(outputs)) {
    if (!output.entryPoint || !outPath.endsWith(".js")) continue;
    const entry = path.resolve(ROOT, output.entryPoint);
    const info = { file: toDist(outPath), imports: staticImports(outPath) };
    const relEntry = path.relative(SRC, entry).split(path.sep);
    if (relEntry[0] === "base") {
      base = info;
    } else if (relEntry[0] === "islands" && relEntry.length === 3) {
      const variant = /^index\.([a-z]+)\.tsx$/.exec(relEntry[2]);
      islands[variant ? `${relEntry[1]}.${variant[1]}` : relEntry[1]] = info;
    }
  }
  if (!base) throw new Error("the base entry is missing from the build output");
  return {
    base,
    islands: Object.fromEntries(Object.entries(islands).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** Compiles main.scss, writes main-<hash>.css (+ .map) and returns its name relative to static/dist. */
function buildCss() {
  const result = sass.compile(SCSS_ENTRY, {
    style: production ? "compressed" : "expanded",
    loadPaths: [path.join(ROOT, "node_modules")],
    sourceMap: true,
    sourceMapIncludeSources: false,
    // Bootstrap 5.3 is written for @import and the global Sass functions; its own warnings are
    // not ours to fix (quietDeps), and our main.scss must @import it, as Bootstrap documents.
    quietDeps: true,
    silenceDeprecations: ["import", "global-builtin", "color-functions", "if-function"],
  });
  const css = result.css;
  const hash = createHash("sha256").update(css).digest("hex").slice(0, 8).toUpperCase();
  const name = `main-${hash}.css`;
  const map = result.sourceMap;
  if (map) {
    map.file = name;
    map.sources = map.sources.map((s) =>
      s.startsWith("file:") ? path.relative(OUT, fileURLToPath(s)).split(path.sep).join("/") : s,
    );
  }
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, name), `${css}\n/*# sourceMappingURL=${name}.map */\n`);
  if (map) fs.writeFileSync(path.join(OUT, `${name}.map`), JSON.stringify(map));
  return name;
}

function writeManifest(manifest) {
  const tmp = `${MANIFEST}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  fs.renameSync(tmp, MANIFEST); // atomic: the server never reads half a file
}

/** Files under static/dist that belong to the current build (with their .map and legal files). */
function currentFiles(metafile, cssName) {
  const keep = new Set(["manifest.json"]);
  for (const outPath of Object.keys(metafile?.outputs ?? {})) {
    keep.add(path.relative(OUT, path.resolve(ROOT, outPath)).split(path.sep).join("/"));
  }
  if (cssName) {
    keep.add(cssName);
    keep.add(`${cssName}.map`);
  }
  return keep;
}

/**
 * Watch mode: removes the files of earlier builds that the current one no longer uses.
 * Only files known from an earlier metafile (or CSS build) are removed, never "whatever is
 * not in the current build": esbuild writes a rebuild's files before its onEnd reaches us,
 * and those must survive a CSS publish that still holds the previous metafile.
 */
function pruneStale(known, keep) {
  for (const name of [...known]) {
    if (keep.has(name)) continue;
    known.delete(name);
    const full = path.join(OUT, name);
    fs.rmSync(full, { force: true });
    const dir = path.dirname(full);
    try {
      if (dir !== OUT && fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
    } catch {
      // already gone or not empty
    }
  }
  for (const name of keep) known.add(name);
}

function formatMessages(messages, kind) {
  return esbuild.formatMessagesSync(messages, { kind, color: process.stdout.isTTY }).join("\n");
}

/**
 * After a build: removes every file under static/dist that the new manifest does not use.
 * The previous build's files stay until the new manifest is in place, so the running
 * server never finds the manifest missing nor a file it names gone.
 */
function pruneOutside(keep) {
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const name = path.relative(OUT, full).split(path.sep).join("/");
      if (entry.isDirectory()) {
        walk(full);
        if (fs.readdirSync(full).length === 0) fs.rmdirSync(full);
      } else if (!keep.has(name) && !name.endsWith(".tmp")) {
        fs.rmSync(full, { force: true });
      }
    }
  };
  walk(OUT);
}

async function buildOnce() {
  const started = performance.now();
  fs.mkdirSync(OUT, { recursive: true });

  let result;
  try {
    result = await esbuild.build(esbuildOptions(findEntries()));
  } catch (err) {
    // esbuild already printed the errors (logLevel "warning").
    console.error(`JS build failed${err?.errors ? ` with ${err.errors.length} error(s)` : `: ${err}`}`);
    return 1;
  }
  try {
    await esbuild.build(serviceWorkerOptions());
  } catch (err) {
    console.error(`Service worker build failed${err?.errors ? ` with ${err.errors.length} error(s)` : `: ${err}`}`);
    return 1;
  }
  let cssName;
  try {
    cssName = buildCss();
  } catch (err) {
    console.error(`SCSS build failed:\n${err?.message ?? err}`);
    return 1;
  }
  const manifest = { ...manifestFromMetafile(result.metafile), css: { main: cssName } };
  writeManifest(manifest);
  pruneOutside(new Set([...currentFiles(result.metafile, cssName), "sw.js", "sw.js.map"]));

  const jsBytes = Object.entries(result.metafile.outputs)
    .filter(([p]) => p.endsWith(".js"))
    .reduce((n, [, o]) => n + o.bytes, 0);
  const cssBytes = fs.statSync(path.join(OUT, cssName)).size;
  log(
    `built ${1 + Object.keys(manifest.islands).length} entries (${Object.keys(manifest.islands).length} islands), ` +
      `JS ${(jsBytes / 1024).toFixed(1)} KiB, CSS ${(cssBytes / 1024).toFixed(1)} KiB ` +
      `in ${Math.round(performance.now() - started)} ms -> ${rel(MANIFEST)}`,
  );
  return 0;
}

async function runWatch() {
  // The files of the last build stay until the watcher's first build replaces them.
  fs.mkdirSync(OUT, { recursive: true });

  let metafile = null;
  let cssName = null;
  const known = new Set();
  let entriesKey = "";
  let ctx = null;

  const publish = (what, started) => {
    if (!metafile || !cssName) return;
    try {
      writeManifest({ ...manifestFromMetafile(metafile), css: { main: cssName } });
      pruneStale(known, currentFiles(metafile, cssName));
      log(`rebuilt ${what} in ${Math.round(performance.now() - started)} ms`);
    } catch (err) {
      log(`manifest failed: ${err?.message ?? err}`);
    }
  };

  const manifestPlugin = {
    name: "manifest",
    setup(build) {
      let started = 0;
      build.onStart(() => {
        started = performance.now();
      });
      build.onEnd((result) => {
        if (result.errors.length) {
          console.error(formatMessages(result.errors, "error"));
          log(`JS build failed with ${result.errors.length} error(s); keeping the previous files`);
          return;
        }
        if (result.warnings.length) console.warn(formatMessages(result.warnings, "warning"));
        metafile = result.metafile;
        publish("JS", started);
      });
    },
  };

  const startContext = async () => {
    const entries = findEntries();
    entriesKey = entries.join("\n");
    const options = esbuildOptions(entries);
    const next = await esbuild.context({ ...options, logLevel: "silent", plugins: [...options.plugins, manifestPlugin] });
    if (ctx) await ctx.dispose();
    ctx = next;
    await ctx.watch();
  };

  const rebuildCss = () => {
    const started = performance.now();
    try {
      cssName = buildCss();
      publish("CSS", started);
    } catch (err) {
      console.error(err?.message ?? String(err));
      log("SCSS build failed; keeping the previous CSS");
    }
  };

  rebuildCss();
  await startContext();

  // The service worker: its own context, its own fixed file (pruneStale never sees it).
  const swContext = await esbuild.context({
    ...serviceWorkerOptions(),
    logLevel: "silent",
    plugins: [
      {
        name: "sw-log",
        setup(build) {
          build.onEnd((result) => {
            if (result.errors.length) {
              console.error(formatMessages(result.errors, "error"));
              log("service worker build failed; keeping the previous sw.js");
            } else {
              log("rebuilt sw.js");
            }
          });
        },
      },
    ],
  });
  await swContext.watch();

  // SCSS: esbuild does not see .scss files, so watch them ourselves (recursive fs.watch works
  // on Linux with Node 20), debounced.
  let cssTimer = null;
  fs.watch(SCSS_DIR, { recursive: true }, (_event, file) => {
    if (file && !String(file).endsWith(".scss")) return;
    clearTimeout(cssTimer);
    cssTimer = setTimeout(rebuildCss, 50);
  });

  // A new island folder is a new entry point: restart the esbuild context.
  let entriesTimer = null;
  fs.watch(path.join(SRC, "islands"), { recursive: true }, () => {
    clearTimeout(entriesTimer);
    entriesTimer = setTimeout(async () => {
      try {
        if (findEntries().join("\n") !== entriesKey) {
          log("entries changed; restarting esbuild");
          await startContext();
        }
      } catch (err) {
        log(`entries: ${err?.message ?? err}`);
      }
    }, 100);
  });

  log(`watching ${rel(SRC)} -> ${rel(OUT)} (Ctrl-C to stop)`);
  const stop = async () => {
    await swContext.dispose();
    await ctx?.dispose();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (watch) {
    runWatch().catch((err) => {
      console.error(err);
      process.exit(1);
    });
  } else {
    process.exitCode = await buildOnce();
  }
}
