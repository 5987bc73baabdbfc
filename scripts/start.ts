// npm start: validates the environment, builds the app when the sources changed since the last build,
// then serves it on PORT (the server itself migrates and seeds the database at start).
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { EnvError, loadEnv } from "../lib/env";
import { readLock } from "../lib/db/pglite-lock";
import { pgliteDir } from "../lib/db/connect";

const SOURCES = ["app", "components", "lib", "types", "public", "prisma/schema.prisma", "instrumentation.ts", "next.config.ts", "package-lock.json", "postcss.config.mjs", "tsconfig.json"];
const STAMP = path.join(".next", "mosaic-source-stamp");

function walk(p: string, out: string[]) {
  if (!existsSync(p)) return;
  const s = statSync(p);
  if (s.isDirectory()) {
    if (p.endsWith(`${path.sep}generated`)) return;
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

let env;
try {
  env = loadEnv();
} catch (e) {
  console.error(e instanceof EnvError ? e.message : String(e));
  process.exit(1);
}

if (!env.DATABASE_URL) {
  const holder = readLock(pgliteDir(env));
  if (holder) {
    try {
      process.kill(holder.pid, 0);
      console.error(
        `Mosaic is already running on this data directory (pid ${holder.pid}, since ${holder.startedAt}).\n` +
          `Open http://localhost:${env.PORT}, or stop that process before starting another one.`,
      );
      process.exit(1);
    } catch {
      // Stale lock from a crashed run: the server takes it over at start.
    }
  }
}

const stamp = sourceStamp();
const built = existsSync(path.join(".next", "BUILD_ID")) && existsSync(STAMP) && readFileSync(STAMP, "utf8") === stamp;
if (!built) {
  console.log("Building Mosaic (first start, or the sources changed)…");
  const r = spawnSync("npx", ["next", "build"], { stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  if (r.status !== 0) {
    console.error("The build failed; see the messages above.");
    process.exit(r.status ?? 1);
  }
  writeFileSync(STAMP, stamp);
}

const child = spawn("npx", ["next", "start", "-p", String(env.PORT)], {
  stdio: "inherit",
  env: { ...process.env, NODE_ENV: "production", NEXTAUTH_URL: env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}` },
});
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
child.on("exit", (code) => process.exit(code ?? 0));
