import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResultTooLargeError } from "@/lib/backends/errors";
import { createSparqlBackend } from "@/lib/backends/sparql";
import type { KnowledgeBackend } from "@/lib/backends/types";

/**
 * A remote SPARQL endpoint that answers too much: its body is read as it streams and the request is
 * stopped past the result budget (twice RESULT_MAX_BYTES of SPARQL JSON), and a single huge value in
 * an answer that fits is cut and marked. A real HTTP server on loopback plays the hostile endpoint.
 */
let server: http.Server;
let endpoint: string;
let sentBytes = 0;
let kb: KnowledgeBackend;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const query = url.searchParams.get("query") ?? "";
    res.writeHead(200, { "Content-Type": "application/sparql-results+json" });
    if (query.includes("endless")) {
      // An answer that never stops: rows as fast as the socket takes them.
      res.write('{"head":{"vars":["s"]},"results":{"bindings":[');
      const row = JSON.stringify({ s: { type: "literal", value: "x".repeat(10_000) } });
      let stop = false;
      res.on("close", () => (stop = true));
      const pump = () => {
        while (!stop && res.write(`${row},`)) sentBytes += row.length;
        if (!stop) res.once("drain", pump);
      };
      pump();
      return;
    }
    res.end(
      JSON.stringify({ head: { vars: ["big"] }, results: { bindings: [{ big: { type: "literal", value: "y".repeat(2_000_000) } }] } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sparql`;
  kb = createSparqlBackend({ mode: "remote", endpoint }, {}, { kbId: "kb-hostile", kbName: "Hostile endpoint", storageDir: "/tmp" });
});

afterAll(async () => {
  await kb.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("a remote SPARQL endpoint that answers too much", () => {
  it("stops reading an endless answer past the budget, with a clear message", async () => {
    const started = performance.now();
    const attempt = kb.execute({ language: "sparql", text: 'SELECT ?s WHERE { ?s ?p "endless" }' }, { timeoutMs: 20_000 });
    await expect(attempt).rejects.toBeInstanceOf(ResultTooLargeError);
    await expect(attempt).rejects.toThrow("The result is larger than 16 MB, the most one query may return, so it was stopped.");
    expect(performance.now() - started).toBeLessThan(15_000);
    // Read up to the budget (twice the result budget of JSON), not beyond it by much.
    expect(sentBytes).toBeLessThan(3 * 32 * 1024 * 1024);
  });

  it("cuts one huge value and marks it", async () => {
    const r = await kb.execute({ language: "sparql", text: 'SELECT ?big WHERE { ?s ?p "big" }' });
    const value = (r.records[0]!.big as { value: string }).value;
    expect(value.length).toBeLessThan(70_000);
    expect(value).toMatch(/\[cut: the value is 2,000,000 bytes long; values are kept up to 65,536 bytes\]$/);
  });
});
