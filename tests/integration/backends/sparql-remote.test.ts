import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackendUnavailableError, QueryRejectedError, QueryTimeoutError } from "@/lib/backends/errors";
import { createSparqlBackend } from "@/lib/backends/sparql";
import type { RdfTerm } from "@/lib/backends/sparql";
import type { KnowledgeBackend } from "@/lib/backends/types";
import { freePort } from "../../support/services/postgres";
import { VIRTUOSO_FIXTURE_GRAPH, VIRTUOSO_FIXTURE_TRIPLES } from "../../support/services/virtuoso";

/**
 * Remote mode. The protocol tests run against a tiny local HTTP server and always run; the endpoint
 * tests need a real SPARQL endpoint holding the shop fixture in VIRTUOSO_FIXTURE_GRAPH, as started by
 * tests/support/services/virtuoso.ts in `npm run test:services` (TEST_SPARQL_ENDPOINT).
 */

const ctx = { kbId: "kb-remote", kbName: "Remote shop", storageDir: "/nonexistent" };
const SHOP = "http://example.org/shop/";
const PREFIXES = `PREFIX shop: <${SHOP}> PREFIX item: <${SHOP}item/> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n`;
const sparql = (text: string) => ({ language: "sparql" as const, text });

describe("SPARQL backend, remote: protocol", () => {
  let server: http.Server;
  let base: string;
  const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        if (req.url!.startsWith("/private") && req.headers.authorization !== `Basic ${Buffer.from("reader:s3cret").toString("base64")}`) {
          res.writeHead(401).end("Unauthorized");
          return;
        }
        if (req.url!.startsWith("/slow")) return; // never answers
        res.writeHead(200, { "Content-Type": "application/sparql-results+json" });
        res.end(JSON.stringify({ head: { vars: ["x"] }, results: { bindings: [{ x: { type: "literal", value: "ok" } }] } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((r) => {
        // The never-answering route leaves a request open; close() would wait for it.
        server.closeAllConnections();
        server.close(() => r());
      }),
  );

  const remote = (path: string, extra: { user?: string; defaultGraph?: string } = {}, password?: string) =>
    createSparqlBackend({ mode: "remote", endpoint: `${base}${path}`, ...extra }, { password }, ctx);

  it("asks for SPARQL JSON results with the default graph and basic auth, GET for short queries and POST for long ones", async () => {
    const kb = remote("/private/sparql", { user: "reader", defaultGraph: "http://example.org/g" }, "s3cret");
    const r = await kb.execute(sparql("SELECT ?x WHERE { ?x ?p ?o }"), { maxRows: 10 });
    expect(r.records).toEqual([{ x: { termType: "Literal", value: "ok" } }]);
    const first = seen.find((s) => s.method === "GET")!;
    const url = new URL(first.url, base);
    expect(url.searchParams.get("default-graph-uri")).toBe("http://example.org/g");
    expect(url.searchParams.get("query")).toMatch(/LIMIT 11$/);
    expect(first.headers.accept).toBe("application/sparql-results+json");

    const long = `SELECT ?x WHERE { ?x ?p ?o FILTER(?o IN (${Array.from({ length: 300 }, (_, i) => `"value ${i}"`).join(", ")})) }`;
    await kb.execute(sparql(long));
    const post = seen.find((s) => s.method === "POST")!;
    expect(post.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(new URLSearchParams(post.body).get("query")).toContain('"value 299"');
  });

  it("says when the endpoint refuses the credentials", async () => {
    const err = await remote("/private/sparql", { user: "reader" }, "wrong")
      .execute(sparql("ASK { ?s ?p ?o }"))
      .catch((e) => e);
    expect(err).toBeInstanceOf(BackendUnavailableError);
    expect(err.message).toMatch(/refused access \(HTTP 401\)\. Check the user name and password/);
  });

  it("times out a request the endpoint never answers", async () => {
    const started = Date.now();
    await expect(remote("/slow/sparql").execute(sparql("SELECT * WHERE { ?s ?p ?o }"), { timeoutMs: 300 })).rejects.toBeInstanceOf(
      QueryTimeoutError,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("refuses updates before anything is sent", async () => {
    const before = seen.length;
    await expect(remote("/sparql").execute(sparql("DROP ALL"))).rejects.toBeInstanceOf(QueryRejectedError);
    expect(seen.length).toBe(before);
  });

  it("reports an unreachable endpoint in words", async () => {
    const port = await freePort();
    const kb = createSparqlBackend({ mode: "remote", endpoint: `http://127.0.0.1:${port}/sparql` }, {}, ctx);
    const health = await kb.check();
    expect(health.ok).toBe(false);
    expect(health.message).toMatch(new RegExp(`^Cannot reach http://127\\.0\\.0\\.1:${port}/sparql: connection refused\\.`));
    await expect(kb.execute(sparql("SELECT * WHERE { ?s ?p ?o }"))).rejects.toBeInstanceOf(BackendUnavailableError);
  });
});

const ENDPOINT = process.env.TEST_SPARQL_ENDPOINT;

describe.skipIf(!ENDPOINT)("SPARQL backend, remote endpoint (TEST_SPARQL_ENDPOINT)", () => {
  let kb: KnowledgeBackend;
  beforeAll(() => {
    kb = createSparqlBackend({ mode: "remote", endpoint: ENDPOINT!, defaultGraph: VIRTUOSO_FIXTURE_GRAPH }, {}, ctx);
  });
  afterAll(() => kb?.close());

  async function tripleCount(): Promise<number> {
    const r = await kb.execute(sparql("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"));
    return Number((r.records[0].n as RdfTerm).value);
  }

  it("checks the connection", async () => {
    const health = await kb.check();
    expect(health.ok).toBe(true);
    expect(health.message).toMatch(new RegExp(`^Connected to ${ENDPOINT!.replace(/[.?]/g, "\\$&")}: answered in \\d+ ms\\.$`));
  });

  it("describes the graph with bounded aggregate queries", async () => {
    const d = await kb.describe();
    expect(d.text).toContain(`SPARQL endpoint ${ENDPOINT}, graph <${VIRTUOSO_FIXTURE_GRAPH}>`);
    expect(d.text).toContain(`${VIRTUOSO_FIXTURE_TRIPLES} triples`);
    expect(d.text).toContain(`PREFIX shop: <${SHOP}>`);
    expect(d.text).toContain("- shop:Product (7)");
    expect(d.text).toContain("- shop:madeBy (7; shop:Product → shop:Organisation)");
    expect(d.text).toContain('- shop:basedIn "headquartered in" (4; shop:Organisation → ?)');
    expect(d.text).toMatch(/- item:\S+ shop:madeBy org:\S+ \. {2}# .+ — made by — .+/);
    expect(d.text).not.toContain("Notes:");
    const units = await kb.sourceUnits();
    expect(units.find((u) => u.key === `${SHOP}Product`)?.description).toMatch(
      /^Class Product: 7 instances; properties: .*made by → Organisation/,
    );
  });

  it("executes SELECT, CONSTRUCT and ASK and verbalizes triples with labels", async () => {
    const r = await kb.execute(sparql(`${PREFIXES}SELECT ?product ?maker WHERE { ?product shop:madeBy ?maker }`));
    expect(r.records).toHaveLength(7);
    const texts = kb.verbalize(r).map((p) => p.text);
    expect(texts).toContain("Anvil made by Acme Corporation");
    const anvil = kb.verbalize(r).find((p) => p.text === "Anvil made by Acme Corporation")!;
    expect(anvil.provenance.sourceObject).toBe(`${SHOP}Product`);

    const c = await kb.execute(sparql(`${PREFIXES}CONSTRUCT { ?o shop:makes ?p } WHERE { ?p shop:madeBy ?o }`));
    expect(c.columns).toEqual(["subject", "predicate", "object"]);
    expect(kb.verbalize(c).map((p) => p.text)).toContain("Initech makes Red Stapler");

    expect((await kb.execute(sparql(`${PREFIXES}ASK { item:anvil shop:madeBy ?o }`))).records).toEqual([{ ask: true }]);
    expect((await kb.execute(sparql(`${PREFIXES}ASK { item:anvil shop:madeBy item:anvil }`))).records).toEqual([{ ask: false }]);
  });

  it("previews a class and indexes entities", async () => {
    const preview = await kb.preview(`${SHOP}Product`, { limit: 4 });
    expect(preview).toMatchObject({ kind: "table", title: "Product", totalRows: 7, truncated: true });
    const entries = await kb.entityIndex({ limit: 500 });
    expect(entries.find((e) => e.label === "Acme Corporation")).toMatchObject({ kind: "label", sourceObject: `${SHOP}Organisation` });
  });

  it("refuses the attack corpus and leaves the data untouched", async () => {
    const before = await tripleCount();
    for (const text of [
      `${PREFIXES}INSERT DATA { GRAPH <${VIRTUOSO_FIXTURE_GRAPH}> { item:anvil shop:price 0 } }`,
      `DELETE WHERE { GRAPH <${VIRTUOSO_FIXTURE_GRAPH}> { ?s ?p ?o } }`,
      `WITH <${VIRTUOSO_FIXTURE_GRAPH}> DELETE { ?s ?p ?o } INSERT { ?s ?p "x" } WHERE { ?s ?p ?o }`,
      `LOAD <http://evil.example/data.ttl> INTO GRAPH <${VIRTUOSO_FIXTURE_GRAPH}>`,
      `DROP GRAPH <${VIRTUOSO_FIXTURE_GRAPH}>`,
      `CLEAR GRAPH <${VIRTUOSO_FIXTURE_GRAPH}>`,
      "CREATE GRAPH <http://example.org/other>",
      `COPY <${VIRTUOSO_FIXTURE_GRAPH}> TO <http://example.org/other>`,
      "SELECT * WHERE { ?s ?p ?o } ; DROP ALL",
      "SELECT * WHERE { SERVICE <http://evil.example/sparql> { ?s ?p ?o } }",
    ]) {
      await expect(kb.execute(sparql(text)), text).rejects.toBeInstanceOf(QueryRejectedError);
    }
    expect(await tripleCount()).toBe(before);
    expect(before).toBe(VIRTUOSO_FIXTURE_TRIPLES);
  });

  it("caps a result of millions of rows and flags it truncated", async () => {
    const r = await kb.execute(sparql("SELECT ?a ?d ?g ?j WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"), {
      maxRows: 500,
      timeoutMs: 20_000,
    });
    expect(r.records).toHaveLength(500);
    expect(r.truncated).toBe(true);
  });

  it("stops waiting for a runaway query at the timeout, and the endpoint still answers", async () => {
    const runaway = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p1 ?b . ?c ?p2 ?d . ?e ?p3 ?f . ?g ?p4 ?h . ?i ?p5 ?j }";
    const started = Date.now();
    await expect(kb.execute(sparql(runaway), { timeoutMs: 1_000 })).rejects.toBeInstanceOf(QueryTimeoutError);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await tripleCount()).toBe(VIRTUOSO_FIXTURE_TRIPLES);
  });
});
