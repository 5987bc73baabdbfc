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

/** Runs `next build` unless the last build was made from exactly these sources. Returns false if the build failed. */
export function buildIfNeeded(): boolean {
  const stamp = sourceStamp();
  const built = existsSync(path.join(".next", "BUILD_ID")) && existsSync(STAMP) && readFileSync(STAMP, "utf8") === stamp;
  if (built) return true;
  console.log("Building Mosaic (first start, or the sources changed)…");
  const next = nextCommand("build");
  const r = spawnSync(next.command, next.args, { stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  if (r.status !== 0) return false;
  writeFileSync(STAMP, stamp);
  return true;
}
