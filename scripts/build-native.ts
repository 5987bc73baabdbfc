// Part of `npm install` (postinstall): builds better-sqlite3's native addon from source.
//
// better-sqlite3's own install script first downloads a prebuilt binary from GitHub (prebuild-install);
// installs here fetch nothing outside the npm registry, so package.json's allowScripts does not run that
// script, and this builds the addon with node-gyp instead. It compiles against the headers that ship
// beside the running Node (<prefix>/include/node: official tarballs and installers, nvm, Homebrew,
// Debian's nodejs) unless npm's `nodedir` config names others. Nothing is built when the addon already
// loads in this Node, so a repeated install costs one quick check.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const PACKAGE = "better-sqlite3";
const pkgDir = path.dirname(require.resolve(`${PACKAGE}/package.json`));

/** Loads the addon in a fresh Node (a failed load is cached per process) and opens an in-memory database. */
function addonLoads(): boolean {
  const probe = `const D = require(${JSON.stringify(PACKAGE)}); new D(":memory:").close();`;
  return spawnSync(process.execPath, ["-e", probe], { stdio: "ignore" }).status === 0;
}

/** The install prefix whose include/node holds this Node's headers, when they are there. */
function localNodeHeaders(): string | null {
  const prefix = path.resolve(path.dirname(process.execPath), "..");
  return existsSync(path.join(prefix, "include", "node", "node_api.h")) ? prefix : null;
}

/** node-gyp as npm runs it for install scripts: npm bundles it and names it in the scripts' environment. */
function nodeGyp(): string[] {
  const npmPrefix = path.dirname(process.execPath);
  const candidates = [
    process.env.npm_config_node_gyp,
    // Run by hand (outside npm): the copy bundled with the npm installed beside this Node.
    path.join(npmPrefix, "..", "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js"),
    path.join(npmPrefix, "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js"),
  ];
  const script = candidates.find((c) => c && existsSync(c));
  return script ? [process.execPath, script] : ["node-gyp"];
}

if (addonLoads()) process.exit(0);

const nodedir = process.env.npm_config_nodedir || localNodeHeaders();
const started = Date.now();
console.log(`Building ${PACKAGE} from source${nodedir ? ` against the Node headers in ${nodedir}` : " (node-gyp downloads this Node's headers from nodejs.org: none were found beside it)"}; this takes a minute or two, once…`);
const [command, ...args] = nodeGyp();
// The compiler's output (warnings included) is shown only when the build fails, as npm does for dependencies' scripts.
const built = spawnSync(command, [...args, "rebuild", "--release", ...(nodedir ? [`--nodedir=${nodedir}`] : [])], { cwd: pkgDir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
if (built.status !== 0 || !addonLoads()) {
  const log = `${built.stdout ?? ""}${built.stderr ?? ""}`.trim().split("\n").slice(-60).join("\n");
  console.error(
    `${log}\n\nCould not build ${PACKAGE} from source${built.error ? ` (${built.error.message})` : ""}. It needs Python 3, make and a C++ compiler ` +
      "(Debian/Ubuntu: apt-get install python3 make g++; macOS: xcode-select --install; Windows: the Visual Studio C++ build tools), " +
      "then run npm install again.",
  );
  process.exit(1);
}
console.log(`Built ${PACKAGE} in ${Math.round((Date.now() - started) / 1000)} s.`);
