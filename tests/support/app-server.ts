import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { serverCommand } from "../../scripts/serve";
import { freePort } from "./services/postgres";

export interface AppServer {
  baseUrl: string;
  dataDir: string;
  /** The server process (scripts/server.ts: Next.js in Mosaic's HTTP server), for measuring it. */
  pid: number | undefined;
  logs(): string;
  stop(): Promise<void>;
  /** Ends the server at once (SIGKILL, no shutdown): a crashed instance. Its data directory is kept for stop(). */
  kill(): Promise<void>;
}

export interface SpawnedApp {
  child: ChildProcess;
  port: number;
  output(): string;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number | null>;
}

/** Spawns the built app (scripts/server.ts, as `npm start` does) on a free port; the caller decides what to wait for. */
export async function spawnApp(dataDir: string, extraEnv: Record<string, string> = {}, fixedPort?: number): Promise<SpawnedApp> {
  const port = fixedPort ?? (await freePort());
  const baseUrl = `http://localhost:${port}`;
  let output = "";
  const server = serverCommand("-p", String(port));
  const child: ChildProcess = spawn(server.command, server.args, {
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATA_DIR: dataDir,
      PORT: String(port),
      NEXTAUTH_URL: baseUrl,
      DATABASE_URL: "",
      LOG_LEVEL: "warn",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, port, output: () => output, exited };
}

/** Starts the built app on a free port with its own embedded data directory (fresh unless given) and waits until healthy. */
export async function startAppServer(
  extraEnv: Record<string, string> = {},
  opts: { dataDir?: string; keepData?: boolean; port?: number } = {},
): Promise<AppServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), "mosaic-e2e-"));
  // A port chosen beforehand when something must know the app's address before it starts (an identity provider's redirect URI).
  const app = await spawnApp(dataDir, extraEnv, opts.port);
  const { child } = app;
  const baseUrl = `http://localhost:${app.port}`;
  const output = app.output;
  const deadline = Date.now() + 240_000; // a loaded 2-core machine starts slowly
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The app exited during start (code ${child.exitCode}):\n${output()}`);
    try {
      const res = await fetch(`${baseUrl}/api/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  if (Date.now() >= deadline) throw new Error(`The app did not become healthy in 240 s:\n${output()}`);
  return {
    baseUrl,
    dataDir,
    pid: child.pid,
    logs: output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        process.kill(-child.pid, "SIGTERM");
        await app.exited;
      }
      if (!opts.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        process.kill(-child.pid, "SIGKILL");
        await app.exited;
      }
    },
  };
}
