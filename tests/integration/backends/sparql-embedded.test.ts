import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPACT_MAX_CHARS, DESCRIPTOR_MAX_CHARS } from "@/lib/backends/descriptor";
import { BackendConfigError, QueryRejectedError, QuerySyntaxError, QueryTimeoutError } from "@/lib/backends/errors";
import { createSparqlBackend, rdfDataFile, storeRdfFiles } from "@/lib/backends/sparql";
import { directMappingFromSqlite } from "@/lib/ingest/benchmarks/direct-mapping";
import type { RdfTerm } from "@/lib/backends/sparql";
import type { BackendContext, KnowledgeBackend, RowData, TripleData } from "@/lib/backends/types";

/** Embedded mode against the real Oxigraph store (WebAssembly, in a worker thread). */

const FIXTURES = path.resolve("tests/fixtures/sparql");
const SHOP = "http://example.org/shop/";
const PREFIXES = `PREFIX shop: <${SHOP}> PREFIX item: <${SHOP}item/> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n`;
const fixture = (name: string) => ({ name, bytes: readFileSync(path.join(FIXTURES, name)) });
const sparql = (text: string) => ({ language: "sparql" as const, text });

const tempDirs: string[] = [];
function newKb(name: string): BackendContext {
  const storageDir = mkdtempSync(path.join(tmpdir(), "mosaic-sparql-"));
  tempDirs.push(storageDir);
  return { kbId: `kb-${name}`, kbName: name, storageDir };
}
const opened: KnowledgeBackend[] = [];
function open(ctx: BackendContext): KnowledgeBackend {
  const b = createSparqlBackend({ mode: "embedded" }, {}, ctx);
  opened.push(b);
  return b;
}
async function tripleCount(b: KnowledgeBackend): Promise<number> {
  const r = await b.execute(sparql("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"));
  return Number((r.records[0].n as RdfTerm).value);
}
const fileHash = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

afterAll(async () => {
  await Promise.all(opened.map((b) => b.close()));
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

describe("SPARQL backend, embedded Oxigraph", () => {
  let ctx: BackendContext;
  let kb: KnowledgeBackend;
  beforeAll(async () => {
    ctx = newKb("Shop");
    const stored = await storeRdfFiles(ctx, [fixture("products.ttl"), fixture("people.nt"), fixture("places.rdf")]);
    expect(stored).toEqual({
      triples: 104,
      files: [
        { name: "products.ttl", triples: 78 },
        { name: "people.nt", triples: 14 },
        { name: "places.rdf", triples: 12 },
      ],
    });
    kb = open(ctx);
  });

  it("loads Turtle, N-Triples and RDF/XML and reports its size", async () => {
    const health = await kb.check();
    expect(health).toMatchObject({ ok: true, message: "Embedded Oxigraph store: 104 triples, 6 classes." });
    // Data from each format is joined in one graph: a product (Turtle) → organisation → country (RDF/XML).
    const r = await kb.execute(
      sparql(
        `${PREFIXES}SELECT ?country WHERE { item:anvil shop:madeBy/shop:basedIn ?c . ?c <http://www.w3.org/2004/02/skos/core#prefLabel> ?country }`,
      ),
    );
    expect((r.records[0].country as RdfTerm).value).toBe("France");
  });

  it("refuses a malformed upload with the file and line, and stores nothing from it", async () => {
    const before = fileHash(rdfDataFile(ctx));
    const broken = {
      name: "broken.ttl",
      bytes: Buffer.from(`@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\nex:d ex:e "unterminated .\n`),
    };
    const err = await storeRdfFiles(ctx, [fixture("people.nt"), broken]).catch((e) => e);
    expect(err).toBeInstanceOf(BackendConfigError);
    expect(err.message).toMatch(/^broken\.ttl: line 3: /);
    const badNt = { name: "bad.nt", bytes: Buffer.from("<http://a> <http://b> <http://c> .\n<http://a> <http://b> .\n") };
    await expect(storeRdfFiles(ctx, [badNt])).rejects.toThrow(/^bad\.nt: line 2: .*object/);
    const badXml = { name: "bad.rdf", bytes: Buffer.from("<rdf:RDF><rdf:Description/></rdf:RDF>") };
    await expect(storeRdfFiles(ctx, [badXml])).rejects.toThrow(/^bad\.rdf: /);
    await expect(storeRdfFiles(ctx, [{ name: "data.csv", bytes: Buffer.from("a,b") }])).rejects.toThrow(/data\.csv: unknown RDF format/);
    expect(fileHash(rdfDataFile(ctx))).toBe(before);
    expect(await tripleCount(kb)).toBe(104);
  });

  it("describes prefixes, classes with counts, predicates with labels, domains and ranges, and example triples", async () => {
    const d = await kb.describe();
    expect(d.text).toContain("104 triples, 6 classes, 16 predicates");
    expect(d.text).toContain(`PREFIX shop: <${SHOP}>`);
    expect(d.text).toContain("PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>");
    expect(d.text).toContain("- shop:Product (7)");
    expect(d.text).toContain("- foaf:Person (3)");
    // A label is shown where it says more than the local name ("madeBy" already reads "made by").
    expect(d.text).toContain("- shop:madeBy (7; shop:Product → shop:Organisation)");
    expect(d.text).toContain("- shop:price (7; shop:Product → xsd:decimal)");
    expect(d.text).toContain('- shop:basedIn "headquartered in" (4; shop:Organisation → geo:Country)');
    expect(d.text).toMatch(/Example triples:\n(- .+\n)*- item:anvil shop:madeBy org:acme \. {2}# Anvil — made by — Acme Corporation/);
    expect(d.text.length).toBeLessThanOrEqual(DESCRIPTOR_MAX_CHARS);
    expect(d.compact.length).toBeLessThanOrEqual(COMPACT_MAX_CHARS);
    expect(d.compact).toContain("Classes: Product (7), Organisation (4)");
    expect(d.compact).toContain("made by");
    expect(d.stats).toMatchObject({ triples: 104, classes: 6, predicates: 16 });
    // Same data, same version; a reopened backend agrees.
    expect((await kb.describe()).version).toBe(d.version);
    const reopened = open(ctx);
    expect((await reopened.describe()).version).toBe(d.version);
  });

  it("lists one source unit per content class with a generated description", async () => {
    const units = await kb.sourceUnits();
    expect(units.map((u) => u.name).sort()).toEqual(["Category", "Country", "Organisation", "Person", "Product"]);
    const product = units.find((u) => u.key === `${SHOP}Product`)!;
    expect(product).toMatchObject({ contentType: "GRAPH", name: "Product" });
    expect(product.description).toMatch(/^Class Product: 7 instances; properties: .*made by → Organisation/);
    expect(product.description).toContain("category → Category");
    expect(product.metadata).toMatchObject({ instances: 7, curie: "shop:Product" });
  });

  it("executes a SELECT and verbalizes its triples with labels from the graph", async () => {
    const r = await kb.execute(sparql(`${PREFIXES}SELECT ?product ?maker WHERE { ?product shop:madeBy ?maker } ORDER BY ?product`));
    expect(r.columns).toEqual(["product", "maker"]);
    expect(r.records).toHaveLength(7);
    expect(r.truncated).toBe(false);
    expect(JSON.parse(JSON.stringify(r.records))).toEqual(r.records);
    expect(r.records[0].product).toMatchObject({
      termType: "NamedNode",
      value: `${SHOP}item/anvil`,
      label: "Anvil",
      class: `${SHOP}Product`,
    });
    const pieces = kb.verbalize(r);
    expect(pieces.every((p) => p.kind === "triple")).toBe(true);
    expect(pieces.map((p) => p.text)).toContain("Anvil made by Acme Corporation");
    const anvil = pieces.find((p) => p.text === "Anvil made by Acme Corporation")!;
    expect(anvil.entities).toEqual(["Anvil", "Acme Corporation"]);
    expect(anvil.provenance).toMatchObject({
      kb: "kb-Shop",
      sourceObject: `${SHOP}Product`,
      query: r.query.text,
      location: { predicate: `${SHOP}madeBy` },
    });
    expect((anvil.data as TripleData).predicate.label).toBe("made by");
  });

  it("verbalizes aggregates as rows, CONSTRUCT and DESCRIBE as triples, ASK as a boolean", async () => {
    const agg = await kb.execute(
      sparql(
        `${PREFIXES}SELECT ?maker (COUNT(?p) AS ?products) (SUM(?price) AS ?total) WHERE { ?p shop:madeBy ?m ; shop:price ?price . ?m rdfs:label ?maker } GROUP BY ?maker ORDER BY DESC(?total)`,
      ),
    );
    const rows = kb.verbalize(agg);
    expect(rows[0].kind).toBe("row");
    expect(rows[0].text).toBe("Query result / maker: Acme Corporation, products: 2, total: 470.49");
    expect((rows[0].data as RowData).values).toEqual(["Acme Corporation", 2, 470.49]);

    const described = await kb.execute(sparql(`${PREFIXES}DESCRIBE item:stapler`));
    expect(described.columns).toEqual(["subject", "predicate", "object"]);
    const texts = kb.verbalize(described).map((p) => p.text);
    expect(texts).toEqual(
      expect.arrayContaining(["Red Stapler made by Initech", "Red Stapler price 12", "Red Stapler category Office supplies"]),
    );

    const constructed = await kb.execute(sparql(`${PREFIXES}CONSTRUCT { ?o shop:makes ?p } WHERE { ?p shop:madeBy ?o }`));
    expect(constructed.records).toHaveLength(7);
    expect(kb.verbalize(constructed).map((p) => p.text)).toContain("Initech makes Red Stapler");

    const ask = await kb.execute(sparql(`${PREFIXES}ASK { ?p shop:price ?x FILTER(?x > 300) }`));
    expect(ask.records).toEqual([{ ask: true }]);
  });

  it("reports a query the store cannot parse or run as a clear error", async () => {
    await expect(kb.execute(sparql("SELECT ?x WHERE { ?x"))).rejects.toBeInstanceOf(QuerySyntaxError);
    await expect(kb.execute({ language: "sql", text: "SELECT 1" })).rejects.toThrow(/answers SPARQL queries, not sql/);
  });

  it("refuses every write in the attack corpus and leaves the data untouched", async () => {
    const before = await tripleCount(kb);
    const beforeFile = fileHash(rdfDataFile(ctx));
    const attacks = [
      `${PREFIXES}INSERT DATA { item:anvil shop:price 0 }`,
      "DELETE WHERE { ?s ?p ?o }",
      `${PREFIXES}DELETE { ?p shop:price ?x } INSERT { ?p shop:price 0 } WHERE { ?p shop:price ?x }`,
      "LOAD <http://evil.example/data.ttl>",
      "DROP ALL",
      "CLEAR DEFAULT",
      "CREATE GRAPH <http://example.org/g>",
      "COPY DEFAULT TO <http://example.org/g>",
      "# just a comment\nDROP DEFAULT",
      "SELECT * WHERE { ?s ?p ?o } ; DELETE WHERE { ?s ?p ?o }",
      "SELECT * WHERE { SERVICE <http://evil.example/sparql> { ?s ?p ?o } }",
    ];
    for (const text of attacks) {
      const err = await kb.execute(sparql(text)).catch((e) => e);
      expect(err, text).toBeInstanceOf(QueryRejectedError);
      expect(err.message).toMatch(/^Query refused: /);
    }
    expect(await tripleCount(kb)).toBe(before);
    expect(fileHash(rdfDataFile(ctx))).toBe(beforeFile);
  });

  it("previews a class as a table of instances and their properties", async () => {
    const preview = await kb.preview(`${SHOP}Product`, { limit: 3 });
    expect(preview.kind).toBe("table");
    if (preview.kind !== "table") return;
    expect(preview).toMatchObject({ title: "Product", totalRows: 7, truncated: true });
    expect(preview.columns[0]).toBe("Product");
    expect(preview.columns).toEqual(expect.arrayContaining(["made by", "price", "category"]));
    expect(preview.rows).toHaveLength(3);
    const anvil = preview.rows.find((r) => r[0] === "Anvil")!;
    expect(anvil[preview.columns.indexOf("made by")]).toBe("Acme Corporation");
    expect(anvil[preview.columns.indexOf("price")]).toBe(120.5);
    await expect(kb.preview("not an iri> } DROP ALL")).rejects.toBeInstanceOf(BackendConfigError);
  });

  it("indexes class, predicate and resource labels and short literal values", async () => {
    const entries = await kb.entityIndex();
    const find = (label: string, kind: string) => entries.find((e) => e.label === label && e.kind === kind);
    expect(find("Product", "class")).toMatchObject({ ref: `${SHOP}Product`, sourceObject: `${SHOP}Product` });
    expect(find("made by", "predicate")).toMatchObject({ ref: `${SHOP}madeBy`, sourceObject: `${SHOP}Product` });
    expect(find("Acme Corporation", "label")).toMatchObject({ ref: `${SHOP}org/acme`, sourceObject: `${SHOP}Organisation` });
    expect(find("France", "label")).toMatchObject({ ref: "http://example.org/geo/France", sourceObject: "http://example.org/geo/Country" });
    expect(find("Ada Lovelace", "label")).toBeDefined();
    expect(find("Chief Engineer", "value")).toMatchObject({ sourceObject: "http://xmlns.com/foaf/0.1/Person" });
    expect(await kb.entityIndex({ limit: 10 })).toHaveLength(10);
  });

  it("sees a later upload without being reopened", async () => {
    const other = newKb("Growing");
    await storeRdfFiles(other, [fixture("people.nt")]);
    const b = open(other);
    expect(await tripleCount(b)).toBe(14);
    await storeRdfFiles(other, [fixture("places.rdf")]);
    expect(await tripleCount(b)).toBe(26);
    expect((await b.describe()).stats.triples).toBe(26);
  });

  it("says the store is empty before anything is uploaded", async () => {
    const health = await open(newKb("Empty")).check();
    expect(health.ok).toBe(false);
    expect(health.message).toMatch(/empty: upload Turtle/);
  });
});

describe("SPARQL backend, embedded: row cap and timeout", () => {
  let kb: KnowledgeBackend;
  beforeAll(async () => {
    // 100 nodes: a three-way cross product binds 1,000,000 rows.
    const lines = Array.from(
      { length: 100 },
      (_, i) => `<http://example.org/n/${i}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Node> .`,
    );
    const ctx = newKb("Nodes");
    await storeRdfFiles(ctx, [{ name: "nodes.nt", bytes: Buffer.from(lines.join("\n")) }]);
    kb = open(ctx);
  });

  it("caps a query returning a million rows and flags it truncated", async () => {
    const q = "SELECT ?a ?b ?c WHERE { ?a a <http://example.org/Node> . ?b a <http://example.org/Node> . ?c a <http://example.org/Node> }";
    const started = Date.now();
    const r = await kb.execute(sparql(q), { maxRows: 1000, timeoutMs: 20_000 });
    expect(r.records).toHaveLength(1000);
    expect(r.truncated).toBe(true);
    expect(Date.now() - started).toBeLessThan(15_000);
    // The cap applies on top of a LIMIT the query wrote itself; a small one is kept and not "truncated".
    const small = await kb.execute(sparql(`${q} LIMIT 5`), { maxRows: 1000 });
    expect(small.records).toHaveLength(5);
    expect(small.truncated).toBe(false);
    // Generated rows (VALUES × VALUES × VALUES) are capped the same way.
    const digits = "VALUES ?d { 0 1 2 3 4 5 6 7 8 9 }";
    const gen = await kb.execute(
      sparql(`SELECT * WHERE { ${digits} ${digits.replace("?d", "?e")} ${digits.replace("?d", "?f")} ${digits.replace("?d", "?g")} }`),
      { maxRows: 50 },
    );
    expect(gen.records).toHaveLength(50);
    expect(gen.truncated).toBe(true);
  });

  it("stops a runaway query at the timeout and keeps the store usable", async () => {
    const runaway = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p1 ?b . ?c ?p2 ?d . ?e ?p3 ?f . ?g ?p4 ?h . ?i ?p5 ?j }";
    const started = Date.now();
    const err = await kb.execute(sparql(runaway), { timeoutMs: 1_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(QueryTimeoutError);
    expect(err.message).toBe("The query ran longer than 1000 ms and was stopped.");
    expect(Date.now() - started).toBeLessThan(5_000);
    // A fresh worker reloads the stored data for the next query.
    expect(await tripleCount(kb)).toBe(100);
    expect((await kb.check()).ok).toBe(true);
  });

  it("cancels a query when the caller's signal aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const runaway = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p1 ?b . ?c ?p2 ?d . ?e ?p3 ?f . ?g ?p4 ?h . ?i ?p5 ?j }";
    await expect(kb.execute(sparql(runaway), { timeoutMs: 30_000, signal: controller.signal })).rejects.toThrow(/cancelled/);
    expect(await tripleCount(kb)).toBe(100);
  });
});

const SPIDER = path.join(
  process.env.DATASETS_DIR ?? path.resolve("../shared/datasets"),
  "spider/database/concert_singer/concert_singer.sqlite",
);

describe.skipIf(!existsSync(SPIDER))("W3C Direct Mapping of a Spider database", () => {
  const base = "http://mosaic.local/spider/concert_singer/";
  let kb: KnowledgeBackend;
  let sql: Database.Database;
  beforeAll(async () => {
    const ntriples = directMappingFromSqlite(SPIDER, base);
    const ctx = newKb("concert_singer");
    // storeRdfFiles parses the output with Oxigraph: the mapping must be valid N-Triples.
    await storeRdfFiles(ctx, [{ name: "concert_singer.nt", bytes: Buffer.from(ntriples) }]);
    kb = open(ctx);
    sql = new Database(SPIDER, { readonly: true, fileMustExist: true });
  });
  afterAll(() => sql?.close());

  const S = `PREFIX singer: <${base}singer#> PREFIX concert: <${base}concert#> PREFIX sic: <${base}singer_in_concert#>\n`;
  const values = (r: { records: Record<string, unknown>[] }, v: string) => r.records.map((x) => (x[v] as RdfTerm).value);

  it("maps tables to classes, rows to primary-key IRIs, columns to typed literals", async () => {
    const r = await kb.execute(sparql(`SELECT ?p ?o WHERE { <${base}singer/Singer_ID=1> ?p ?o }`));
    const byPredicate = Object.fromEntries(r.records.map((x) => [(x.p as RdfTerm).value, x.o as RdfTerm]));
    expect(byPredicate["http://www.w3.org/1999/02/22-rdf-syntax-ns#type"].value).toBe(`${base}singer`);
    expect(byPredicate[`${base}singer#Name`]).toMatchObject({ value: "Joe Sharp" });
    expect(byPredicate[`${base}singer#Age`]).toMatchObject({ value: "52", datatype: "http://www.w3.org/2001/XMLSchema#integer" });
    // A composite key and foreign keys: singer_in_concert rows point at their concert and singer.
    const ref = await kb.execute(
      sparql(
        `SELECT ?c ?s WHERE { ?row <${base}singer_in_concert#ref-concert_ID> ?c ; <${base}singer_in_concert#ref-Singer_ID> ?s } LIMIT 1`,
      ),
    );
    expect((ref.records[0].c as RdfTerm).value).toMatch(new RegExp(`^${base}concert/concert_ID=\\d+$`));
    expect((ref.records[0].s as RdfTerm).value).toMatch(new RegExp(`^${base}singer/Singer_ID=\\d+$`));
  });

  it("answers Spider questions by SPARQL as SQL does", async () => {
    const count = sql.prepare("SELECT count(*) AS n FROM singer").get() as { n: number };
    const r = await kb.execute(sparql(`SELECT (COUNT(?s) AS ?n) WHERE { ?s a <${base}singer> }`));
    expect(Number(values(r, "n")[0])).toBe(count.n);

    const french = (sql.prepare("SELECT name FROM singer WHERE country = 'France'").all() as { Name: string }[])
      .map((x) => Object.values(x)[0])
      .sort();
    const fr = await kb.execute(sparql(`${S}SELECT ?name WHERE { ?s singer:Country "France" ; singer:Name ?name }`));
    expect(values(fr, "name").sort()).toEqual(french);
    expect(french.length).toBeGreaterThan(0);

    const stats = sql.prepare("SELECT avg(age) AS a, min(age) AS mn, max(age) AS mx FROM singer WHERE country = 'France'").get() as {
      a: number;
      mn: number;
      mx: number;
    };
    const agg = await kb.execute(
      sparql(`${S}SELECT (AVG(?age) AS ?a) (MIN(?age) AS ?mn) (MAX(?age) AS ?mx) WHERE { ?s singer:Country "France" ; singer:Age ?age }`),
    );
    expect(Number(values(agg, "a")[0])).toBeCloseTo(stats.a, 6);
    expect(Number(values(agg, "mn")[0])).toBe(stats.mn);
    expect(Number(values(agg, "mx")[0])).toBe(stats.mx);

    // A join through foreign keys: singers who performed in concerts of 2014.
    const joined = (
      sql
        .prepare(
          "SELECT DISTINCT T2.name AS n FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id JOIN concert AS T3 ON T1.concert_id = T3.concert_id WHERE T3.year = 2014",
        )
        .all() as { n: string }[]
    )
      .map((x) => x.n)
      .sort();
    const viaRefs = await kb.execute(
      sparql(
        `${S}SELECT DISTINCT ?name WHERE { ?x sic:ref-Singer_ID ?s ; sic:ref-concert_ID ?c . ?c concert:Year "2014" . ?s singer:Name ?name }`,
      ),
    );
    expect(values(viaRefs, "name").sort()).toEqual(joined);
    expect(joined.length).toBeGreaterThan(0);
  });

  it("describes the mapped database with table and column labels", async () => {
    const d = await kb.describe();
    expect(d.text).toContain(`PREFIX singer: <${base}singer#>`);
    expect(d.text).toContain(`PREFIX concertsinger: <${base}>`);
    expect(d.text).toContain("- concertsinger:singer (6)");
    expect(d.text).toContain("- singer:Country (6; concertsinger:singer → xsd:string)");
    expect(d.text).toContain('- concert:ref-Stadium_ID "Stadium_ID (stadium)" (6; concertsinger:concert → concertsinger:stadium)');
    const units = await kb.sourceUnits();
    expect(units.map((u) => u.name).sort()).toEqual(["concert", "singer", "singer_in_concert", "stadium"]);
    expect(units.find((u) => u.name === "concert")!.description).toMatch(/Stadium_ID \(stadium\) → stadium/);
  });
});
