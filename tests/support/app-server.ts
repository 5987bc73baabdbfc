import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./services/postgres";

export interface AppServer {
  baseUrl: string;
  dataDir: string;
  logs(): string;
  stop(): Promise<void>;
}

/** Starts the built app (`next start`) on a free port with its own fresh embedded data directory. */
export async function startAppServer(extraEnv: Record<string, string> = {}): Promise<AppServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "mosaic-e2e-"));
  const baseUrl = `http://localhost:${port}`;
  let output = "";
  const child: ChildProcess = spawn(path.resolve("node_modules/.bin/next"), ["start", "-p", String(port)], {
    env: { ...process.env, NODE_ENV: "production", DATA_DIR: dataDir, PORT: String(port), NEXTAUTH_URL: baseUrl, DATABASE_URL: "", LOG_LEVEL: "warn", ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The app exited during start (code ${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${baseUrl}/api/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  if (Date.now() >= deadline) throw new Error(`The app did not become healthy in 90 s:\n${output}`);
  return {
    baseUrl,
    dataDir,
    logs: () => output,
    async stop() {
      if (child.exitCode === null && child.pid) {
        process.kill(-child.pid, "SIGTERM");
        await new Promise((r) => child.once("exit", r));
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
