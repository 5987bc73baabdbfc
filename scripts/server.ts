// Mosaic's HTTP server: Next.js's request handler behind a plain Node.js server, run by `npm start`
// (scripts/start.ts), the e2e tests and the benches. It does what Next.js cannot do from inside:
// - writes the socket's remote address into x-mosaic-peer on every request, over anything a client sent
//   under that name, so sign-in throttling keys on the address the server sees (lib/http/client-address.ts);
// - refuses a declared body larger than its path may take before a byte of it is read, and closes the
//   connection (lib/http/door.ts) after a short lingering close, so the client can read why.
// Usage: node --import tsx scripts/server.ts [-p PORT] [-H HOST]   (PORT and HOSTNAME from the environment otherwise)
import http from "node:http";
import type { Socket } from "node:net";
import next from "next";
import { EnvError, parseHttpEnv } from "../lib/env";
import { markPeerHeaderStamped, PEER_HEADER } from "../lib/http/client-address";
import { doorLimits, doorVerdict } from "../lib/http/door";

function arg(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

let limits: ReturnType<typeof doorLimits>;
try {
  limits = doorLimits(parseHttpEnv(process.env));
} catch (e) {
  console.error(e instanceof EnvError ? e.message : String(e));
  process.exit(1);
}

const port = Number(arg("-p") ?? process.env.PORT ?? 3000);
const host = arg("-H") ?? process.env.HOSTNAME;
(process.env as Record<string, string>).NODE_ENV ??= "production";
process.title = "mosaic-server";

markPeerHeaderStamped();
const app = next({ dev: false, dir: process.cwd(), port, hostname: host ?? "localhost" });
const handle = app.getRequestHandler();

/** The door: false when the request was answered here (refused) and must not reach Next.js. */
function admit(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  // Node joins repeated headers of this name with ", ": set, never appended, so a client's own value is gone.
  req.headers[PEER_HEADER] = req.socket.remoteAddress ?? "";
  const verdict = doorVerdict(
    {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      contentLength: req.headers["content-length"],
      transferEncoding: req.headers["transfer-encoding"],
    },
    limits,
  );
  if (verdict.ok) return true;
  const code = verdict.status === 413 ? "PAYLOAD_TOO_LARGE" : "VALIDATION";
  res.writeHead(verdict.status, { "content-type": "application/json", connection: "close" });
  res.end(JSON.stringify({ error: { code, message: verdict.message } }));
  return false;
}

function serve(req: http.IncomingMessage, res: http.ServerResponse): void {
  handle(req, res).catch((err: unknown) => {
    console.error(`Failed to handle ${req.method} ${req.url}:`, err);
    if (!res.headersSent) res.writeHead(500).end("Internal Server Error");
    else res.destroy();
  });
}

const server = http.createServer((req, res) => {
  if (admit(req, res)) serve(req, res);
});
/**
 * Lingering close, as nginx does it. A refused body (413 here or from a route) is answered with
 * "Connection: close" while the client is still sending; closing the socket at once would make the
 * kernel answer the unread bytes with a reset, which can destroy the answer before the client reads
 * it. So the connection is half-closed after the answer and what still arrives is dropped, for at most
 * LINGER_MS and LINGER_BYTES, then it is closed for good.
 */
const LINGER_MS = 2_000;
const LINGER_BYTES = 32 * 1024 * 1024;
server.on("connection", (socket: Socket) => {
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.writable) this.end();
    let dropped = 0;
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once("close", () => clearTimeout(timer));
    this.on("data", (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > LINGER_BYTES) this.destroy();
    });
    this.resume();
  };
});

// "Expect: 100-continue" (curl sends it for large bodies): a refused client is told so before it sends the body.
server.on("checkContinue", (req, res) => {
  if (!admit(req, res)) return;
  res.writeContinue();
  serve(req, res);
});

// As `next start` does: stop taking connections, let requests finish, then close Next.js. The app's own
// handler (lib/server-start.ts) stops the jobs, closes the database and exits.
let closing = false;
const stop = () => {
  if (closing) return;
  closing = true;
  server.close();
  server.closeIdleConnections();
  void app.close().catch(() => {});
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

await app.prepare();
server.listen(port, host, () => console.log(`Mosaic is listening on http://${host ?? "localhost"}:${port}`));
