import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { NextRequest } from "next/server";

type RouteHandler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

export interface RouteServer {
  url: string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? Buffer.concat(chunks) : undefined;
}

/**
 * A real HTTP server on a loopback port in front of route handlers (method → handler at one path), for
 * clients that speak HTTP themselves (the MCP SDK's client): requests cross a socket as from any client,
 * the handlers are the app's own. Other paths are 404.
 */
export async function serveRoute(path: string, handlers: Record<string, RouteHandler | undefined>): Promise<RouteServer> {
  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
      const handler = url.pathname === path ? handlers[req.method ?? "GET"] : undefined;
      if (!handler) {
        res.writeHead(url.pathname === path ? 405 : 404).end();
        return;
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
      }
      const body = await readBody(req);
      const abort = new AbortController();
      res.on("close", () => abort.abort());
      const response = await handler(
        new NextRequest(url, { method: req.method, headers, body: body ? new Uint8Array(body) : undefined, signal: abort.signal }),
        { params: Promise.resolve({}) },
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) Readable.fromWeb(response.body as import("node:stream/web").ReadableStream).pipe(res);
      else res.end();
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
