import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";

/**
 * A throw-away PostgreSQL server from Debian's `postgresql` package on a free loopback port, with its
 * own data directory. initdb refuses to run as root, so as root the server runs as the `postgres` user.
 */
export interface PostgresServer {
  url: string;
  stop(): void;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function findBinDir(): string {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => existsSync(path.join(root, v, "bin", "initdb")));
    versions.sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(root, versions[0], "bin");
  }
  throw new Error("PostgreSQL server binaries not found. Install them with: apt-get update && apt-get install -y postgresql");
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = findBinDir();
  const port = await freePort();
  const base = mkdtempSync(path.join(tmpdir(), "mosaic-pg-"));
  const dataDir = path.join(base, "data");
  const asRoot = userInfo().uid === 0;
  const run = (cmd: string, args: string[]) => {
    const full = asRoot ? ["runuser", ["-u", "postgres", "--", path.join(bin, cmd), ...args]] : [path.join(bin, cmd), args];
    const r = spawnSync(full[0] as string, full[1] as string[], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
  };
  if (asRoot) {
    chmodSync(base, 0o777);
    execFileSync("chown", ["postgres:postgres", base]);
  }
  run("initdb", ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-instructions"]);
  run("pg_ctl", [
    "-D",
    dataDir,
    "-o",
    `-p ${port} -h 127.0.0.1 -k ${base} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
    "-l",
    path.join(base, "server.log"),
    "-w",
    "start",
  ]);
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run("pg_ctl", ["-D", dataDir, "-m", "fast", "-w", "stop"]);
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    },
  };
}
