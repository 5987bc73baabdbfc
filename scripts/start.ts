// npm start: validates the environment, builds the app when the sources changed since the last build,
// then serves it on PORT (the server itself migrates and seeds the database at start).
import { spawn } from "node:child_process";
import { pgliteDir } from "../lib/db/connect";
import { readLock } from "../lib/db/pglite-lock";
import { EnvError, type Env, loadEnv } from "../lib/env";
import { buildIfNeeded } from "./build-if-needed";

let env: Env;
try {
  env = loadEnv();
} catch (e) {
  console.error(e instanceof EnvError ? e.message : String(e));
  process.exit(1);
}

if (!env.DATABASE_URL) {
  const holder = readLock(pgliteDir(env));
  let alive = false;
  if (holder) {
    try {
      process.kill(holder.pid, 0);
      alive = true;
    } catch {
      // Stale lock from a crashed run: the server takes it over at start.
    }
  }
  if (holder && alive) {
    console.error(
      `Mosaic is already running on this data directory (pid ${holder.pid}, since ${holder.startedAt}).\n` +
        "Use the running server, or stop it (Ctrl+C in its terminal) before starting another one.",
    );
    process.exit(1);
  }
}

if (!buildIfNeeded()) {
  console.error("The build failed; see the messages above.");
  process.exit(1);
}

const child = spawn("npx", ["next", "start", "-p", String(env.PORT)], {
  stdio: "inherit",
  env: { ...process.env, NODE_ENV: "production", NEXTAUTH_URL: env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}` },
});
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
child.on("exit", (code) => process.exit(code ?? 0));
