import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { constants } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { lockPathFor, readLock } from "../lib/db/pglite-lock";

/**
 * The Next.js CLI run by this same Node binary: no npx, npm or shell in between, so a signal sent to
 * the server reaches the server (a shell in the middle dies on SIGTERM without passing it on) and no
 * nested npm prints its config warnings.
 */
export function nextCommand(...args: string[]): { command: string; args: string[] } {
  const bin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  return { command: process.execPath, args: [bin, ...args] };
}

/**
 * Mosaic's HTTP server (scripts/server.ts: Next.js behind a Node server that stamps each request with
 * its socket's address and bounds bodies at the door), run by this same Node binary through tsx.
 */
export function serverCommand(...args: string[]): { command: string; args: string[] } {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "server.ts");
  return { command: process.execPath, args: ["--import", "tsx", script, ...args] };
}

/**
 * Runs the server as a child and stops it with this process:
 * - the first SIGINT/SIGTERM/SIGHUP asks it to stop (it closes its connections and the database);
 * - a second one kills it at once;
 * - when the process that launched this one goes away (`npm start` passes SIGTERM only to the shell
 *   it runs scripts in, which dies without passing it on, leaving this process re-parented), that
 *   counts as the first signal;
 * - once the server has ended, an embedded-database lock it still names is removed (it was killed
 *   before it could release it), so the next start and the command-line tools find the database free.
 * This process exits with the server's exit status.
 */
export function superviseServer(cmd: { command: string; args: string[] }, opts: { env: NodeJS.ProcessEnv; lockDir: string | null }): void {
  const child = spawn(cmd.command, cmd.args, { stdio: "inherit", env: opts.env });
  let stopping = false;
  const running = () => child.exitCode === null && child.signalCode === null;

  const stop = (reason: string, signal: NodeJS.Signals) => {
    if (!running()) return;
    if (!stopping) {
      stopping = true;
      console.log(`\n${reason}: stopping Mosaic… (send the signal again, e.g. press Ctrl+C, to stop it at once)`);
      // Next.js handles SIGINT and SIGTERM; a hang-up is passed on as SIGTERM.
      child.kill(signal === "SIGHUP" ? "SIGTERM" : signal);
      return;
    }
    console.log(`${reason} again: stopping Mosaic at once.`);
    child.kill("SIGKILL");
  };

  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => stop(`Received ${signal}`, signal));

  const launcher = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(watch);
    if (!stopping) stop("The command that started Mosaic has ended", "SIGTERM");
  }, 500);

  child.on("exit", (code, signal) => {
    clearInterval(watch);
    if (opts.lockDir && child.pid !== undefined && readLock(opts.lockDir)?.pid === child.pid) {
      rmSync(lockPathFor(opts.lockDir), { force: true });
    }
    process.exit(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
  });
}
