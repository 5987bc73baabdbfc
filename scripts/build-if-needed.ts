import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { nextCommand } from "./serve";

/** What a production build depends on; a change to any of these triggers a rebuild at `npm start`. */
const SOURCES = [
  "app",
  "components",
  "lib",
  "types",
  "public",
  "prisma/schema.prisma",
  "instrumentation.ts",
  "instrumentation-client.ts",
  "proxy.ts",
  "next.config.ts",
  "package-lock.json",
  "postcss.config.mjs",
  "tsconfig.json",
];
const STAMP = path.join(".next", "mosaic-source-stamp");

function walk(p: string, out: string[]) {
  if (!existsSync(p)) return;
  const s = statSync(p);
  if (s.isDirectory()) {
    if (path.basename(p) === "generated") return;
    for (const e of readdirSync(p).sort()) walk(path.join(p, e), out);
  } else {
    out.push(`${p}:${s.size}:${s.mtimeMs}`);
  }
}

export function sourceStamp(): string {
  const files: string[] = [];
  for (const s of SOURCES) walk(s, files);
  return createHash("sha256").update(files.join("\n")).digest("hex");
}

/**
 * Turbopack runs PostCSS (Tailwind) in Node.js helper processes and gives each reply a deadline; on a
 * machine busy with other work a helper can miss it ("timeout while receiving message from process",
 * measured on 2 cores at load 15–20), and the build fails though nothing is wrong with the sources.
 * Its filesystem cache keeps what was already compiled, so one more attempt finishes the rest.
 */
const TRANSIENT_BUILD_FAILURE = /timeout while receiving message from process|deadline has elapsed/;

/** Whether a failed build's error output is the busy-machine timeout above (worth one more attempt), not a real error. */
export function isTransientBuildFailure(stderr: string): boolean {
  return TRANSIENT_BUILD_FAILURE.test(stderr);
}

function runNextBuild(): { ok: boolean; transient: boolean } {
  const next = nextCommand("build");
  // stdout (progress) stays live; stderr is read to tell a busy machine from a real error, then shown.
  const r = spawnSync(next.command, next.args, {
    stdio: ["inherit", "inherit", "pipe"],
    env: { ...process.env, NODE_ENV: "production" },
    maxBuffer: 64 * 1024 * 1024,
  });
  const stderr = r.stderr?.toString("utf8") ?? "";
  if (stderr) process.stderr.write(stderr);
  return { ok: r.status === 0, transient: r.status !== 0 && isTransientBuildFailure(stderr) };
}

/** Runs `next build` unless the last build was made from exactly these sources. Returns false if the build failed. */
export function buildIfNeeded(): boolean {
  const stamp = sourceStamp();
  const built = existsSync(path.join(".next", "BUILD_ID")) && existsSync(STAMP) && readFileSync(STAMP, "utf8") === stamp;
  if (built) return true;
  console.log("Building Mosaic (first start, or the sources changed)…");
  let result = runNextBuild();
  if (!result.ok && result.transient) {
    console.log("The build's CSS helper timed out (the machine is busy); building once more from the build cache…");
    result = runNextBuild();
  }
  if (!result.ok) return false;
  writeFileSync(STAMP, stamp);
  return true;
}
