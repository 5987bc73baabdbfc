import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import path from "node:path";

/**
 * PGlite is a single-process database: two processes opening one data directory corrupt it.
 * Whoever opens the embedded database first holds `<dir>.lock` (pid, command, start time); a second
 * process gets DatabaseLockedError with what to do instead. A lock whose pid is gone is stale and taken over.
 */
export interface LockInfo {
  pid: number;
  command: string;
  startedAt: string;
}

export class DatabaseLockedError extends Error {
  constructor(
    public readonly dataDir: string,
    public readonly holder: LockInfo,
  ) {
    super(
      `The embedded database at ${dataDir} is in use by another Mosaic process ` +
        `(pid ${holder.pid}, "${holder.command}", since ${holder.startedAt}). ` +
        "Only one process may open it at a time. Stop that process first (Ctrl+C in its terminal), " +
        "then run this again; the running server already applies migrations and the seed at its start. " +
        "To run tools beside a running server, use a PostgreSQL server instead (set DATABASE_URL).",
    );
    this.name = "DatabaseLockedError";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function lockPathFor(dataDir: string): string {
  return `${path.resolve(dataDir)}.lock`;
}

export function readLock(dataDir: string): LockInfo | null {
  try {
    return JSON.parse(readFileSync(lockPathFor(dataDir), "utf8")) as LockInfo;
  } catch {
    return null;
  }
}

/** Takes the lock or throws DatabaseLockedError. Returns a release function (idempotent). */
export function acquireDatabaseLock(dataDir: string, command = process.argv.slice(1).join(" ")): () => void {
  const file = lockPathFor(dataDir);
  mkdirSync(path.dirname(file), { recursive: true });
  const info: LockInfo = { pid: process.pid, command: command.slice(0, 200), startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, JSON.stringify(info));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        const current = readLock(dataDir);
        if (current?.pid === process.pid) rmSync(file, { force: true });
      };
      process.once("exit", release);
      return release;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const holder = readLock(dataDir);
      if (holder && holder.pid !== process.pid && isAlive(holder.pid)) {
        throw new DatabaseLockedError(path.resolve(dataDir), holder);
      }
      if (holder && holder.pid === process.pid) {
        throw new Error(`This process already holds the embedded database lock for ${dataDir}.`);
      }
      // Stale (holder died without releasing) or half-written: remove and retry.
      rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not take the embedded database lock ${file}; remove it if no Mosaic process is running.`);
}
