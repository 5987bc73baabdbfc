import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/**
 * A Hugging Face–compatible hub on loopback, serving a models folder in the hub's URL layout:
 * GET /<org>/<name>/resolve/<revision>/<file> answers <root>/<name>/<file>. Like the real hub, large
 * files (.onnx) redirect to a storage URL and state their sha256 in X-Linked-Etag on the redirect;
 * small files answer directly with their git blob sha1 as ETag. `tamper` names files whose stated
 * checksum is wrong (a corrupted mirror).
 */
export interface LoopbackHub {
  url: string;
  requests: string[];
  tamper: Set<string>;
  close(): Promise<void>;
}

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const gitSha1 = (file: string) => {
  const bytes = readFileSync(file);
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
};

export async function startLoopbackHub(root: string): Promise<LoopbackHub> {
  const requests: string[] = [];
  const tamper = new Set<string>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://hub");
    requests.push(url.pathname);
    const storage = /^\/storage\/([^/]+)\/(.+)$/.exec(url.pathname);
    const resolve = /^\/[^/]+\/([^/]+)\/resolve\/[^/]+\/(.+)$/.exec(url.pathname);
    const [name, file] = storage ? [storage[1], storage[2]] : resolve ? [resolve[1], resolve[2]] : [null, null];
    const local = name && file ? path.join(root, name, file) : null;
    if (!local || file!.includes("..") || !existsSync(local)) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("Entry not found");
      return;
    }
    const wrong = "0".repeat(64);
    if (resolve && file!.endsWith(".onnx")) {
      res.writeHead(302, {
        location: `/storage/${name}/${file}`,
        "x-linked-etag": `"${tamper.has(file!) ? wrong : sha256(local)}"`,
        "x-linked-size": String(statSync(local).size),
      });
      res.end();
      return;
    }
    const etag = storage ? undefined : `"${tamper.has(file!) ? "0".repeat(40) : gitSha1(local)}"`;
    res.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": String(statSync(local).size),
      ...(etag ? { etag } : {}),
    });
    createReadStream(local).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    tamper,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
