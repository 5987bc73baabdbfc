// npm start: validates the environment, builds the app when the sources changed since the last build,
// then serves it on PORT through scripts/server.ts (the server itself migrates and seeds the database at start) and stops it
// cleanly on SIGINT/SIGTERM, or at once on a second signal.
import { pgliteDir } from "../lib/db/connect";
import { readLock } from "../lib/db/pglite-lock";
import { EnvError, type Env, loadEnv } from "../lib/env";
import { buildIfNeeded } from "./build-if-needed";
import { serverCommand, superviseServer } from "./serve";

let env: Env;
try {
  env = loadEnv();
} catch (e) {
  console.error(e instanceof EnvError ? e.message : String(e));
  process.exit(1);
}

const lockDir = env.DATABASE_URL ? null : pgliteDir(env);
if (lockDir) {
  const holder = readLock(lockDir);
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

superviseServer(serverCommand("-p", String(env.PORT)), {
  env: { ...process.env, NODE_ENV: "production", NEXTAUTH_URL: env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}` },
  lockDir,
});
