import neo4j, { type Driver } from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCypherBackend, neighborhoodQuery } from "@/lib/backends/cypher";
import { loadNorthwindCsv } from "@/lib/ingest/benchmarks/northwind";
import { readCypher, recordToJson } from "@/lib/backends/cypher/read";
import {
  BackendUnavailableError,
  QueryExecutionError,
  QueryRejectedError,
  QuerySyntaxError,
  QueryTimeoutError,
} from "@/lib/backends/errors";
import type { KnowledgeBackend, PathData, RowData } from "@/lib/backends/types";
import { closeAllBackends } from "@/lib/backends/registry";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import type { CatalogDeps } from "@/lib/deps";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import type { RunOutcome } from "@/lib/pipeline/run";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { datasetsDir, loadMoviesGraph } from "../../support/services/neo4j";
import { freePort } from "../../support/services/postgres";
import { createTestDatabase, type TestDatabase } from "../support/test-database";
import { queryAttackOutcome, queryAttacks } from "../../support/attack-corpus";

/**
 * The Cypher backend against a real Neo4j 5 (npm run test:services starts one from
 * tests/support/services/neo4j.ts and sets TEST_NEO4J_URI / _USER / _PASSWORD). The movies graph is
 * loaded when the database has none of it.
 */
const uri = process.env.TEST_NEO4J_URI;
const user = process.env.TEST_NEO4J_USER ?? "neo4j";
const password = process.env.TEST_NEO4J_PASSWORD;
const ctx = { kbId: "kb_movies", kbName: "Movies", storageDir: "/nonexistent" };

describe.skipIf(!uri)("Cypher backend on a real Neo4j", () => {
  let driver: Driver;
  let backend: KnowledgeBackend;

  const count = async (query: string) => {
    const session = driver.session({ defaultAccessMode: neo4j.session.READ });
    try {
      return neo4j.integer.toNumber((await session.run(query)).records[0]!.get(0));
    } finally {
      await session.close();
    }
  };
  /** What an attack must leave untouched: every node, relationship, label, property, index and constraint. */
  const snapshot = async () => ({
    nodes: await count("MATCH (n) RETURN count(n)"),
    relationships: await count("MATCH ()-[r]->() RETURN count(r)"),
    labels: await count("CALL db.labels() YIELD label RETURN count(label)"),
    personProperties: await count("MATCH (p:Person) UNWIND keys(p) AS k RETURN count(DISTINCT k)"),
    personBorn: await count("MATCH (p:Person) WHERE p.born IS NOT NULL RETURN count(p)"),
    indexes: await count("SHOW INDEXES YIELD name RETURN count(name)"),
    constraints: await count("SHOW CONSTRAINTS YIELD name RETURN count(name)"),
  });

  beforeAll(async () => {
    driver = neo4j.driver(uri!, password ? neo4j.auth.basic(user, password) : undefined);
    if ((await count("MATCH (m:Movie) RETURN count(m)")) === 0) await loadMoviesGraph(driver);
    backend = createCypherBackend({ uri: uri!, user }, { password }, ctx);
  });
  afterAll(async () => {
    await backend?.close();
    await driver?.close();
  });

  it("checks the connection and names the server, the database and the graph's size", async () => {
    const health = await backend.check();
    expect(health.ok).toBe(true);
    expect(health.message).toMatch(/^Connected \(Neo4j 5\.\d+\.\d+, database neo4j, \d+ nodes, \d+ relationships\)$/);
  });

  it("explains a refused sign-in and an unreachable server without leaking the password", async () => {
    const wrong = createCypherBackend({ uri: uri!, user }, { password: "not-the-password-42" }, ctx);
    try {
      const health = await wrong.check();
      expect(health.ok).toBe(false);
      expect(health.message).toBe(`Neo4j refused the credentials for user ${user}. Check the user name and password.`);
      expect(health.message).not.toContain("not-the-password-42");
      await expect(wrong.execute({ language: "cypher", text: "RETURN 1" })).rejects.toBeInstanceOf(BackendUnavailableError);
    } finally {
      await wrong.close();
    }
    const port = await freePort();
    const nowhere = createCypherBackend({ uri: `bolt://127.0.0.1:${port}`, user }, { password: "secret-xyz" }, ctx);
    try {
      const health = await nowhere.check();
      expect(health).toMatchObject({ ok: false, message: `Cannot reach bolt://127.0.0.1:${port}: connection refused.` });
    } finally {
      await nowhere.close();
    }
  });

  it("describes the graph in the Text2Cypher schema layout, with a stable version", async () => {
    const d = await backend.describe();
    expect(d.text).toContain("Node properties:\n- **Movie** (38 nodes)");
    expect(d.text).toContain('  - `title`: STRING Example: "');
    expect(d.text).toContain("  - `released`: INTEGER Min: 1975, Max: 2012");
    expect(d.text).toContain("- **Person** (133 nodes)");
    expect(d.text).toContain("Relationship properties:\n- **ACTED_IN**\n  - `roles: LIST` Min Size: 1, Max Size: 6");
    expect(d.text).toContain("The relationships:\n");
    expect(d.text).toContain("(:Person)-[:ACTED_IN]->(:Movie) (172 relationships)");
    expect(d.text).toContain("(:Person)-[:FOLLOWS]->(:Person) (3 relationships)");
    expect(d.compact).toContain("(:Person)-[:REVIEWED]->(:Movie)");
    expect(d.compact.length).toBeLessThan(d.text.length);
    expect(d.stats).toMatchObject({ patterns: expect.any(Number), relationshipTypes: expect.any(Number) });
    const again = createCypherBackend({ uri: uri!, user }, { password }, ctx);
    try {
      expect((await again.describe()).version).toBe(d.version);
    } finally {
      await again.close();
    }
  });

  it("makes one graph source unit per node label, with its relationships in the description", async () => {
    const units = await backend.sourceUnits();
    const movie = units.find((u) => u.key === "Movie")!;
    expect(movie).toMatchObject({ name: "Movie", contentType: "GRAPH" });
    expect(movie.description).toMatch(/^Label Movie: 38 nodes; properties .*; relationships: /);
    expect(movie.description).toContain("title (string)");
    expect(movie.description).toContain("released (integer)");
    expect(movie.description).toContain("(:Person)-[:ACTED_IN]->(:Movie)");
    expect(movie.metadata).toMatchObject({ nodeCount: 38, captionProperty: "title" });
    expect(units.find((u) => u.key === "Person")?.description).toContain("(:Person)-[:FOLLOWS]->(:Person)");
  });

  it("executes a path query and verbalizes each path as A -REL-> B with its provenance", async () => {
    const text = "MATCH p=(:Person {name:'Tom Hanks'})-[:ACTED_IN]->(:Movie) RETURN p LIMIT 3";
    const result = await backend.execute({ language: "cypher", text });
    expect(result).toMatchObject({ columns: ["p"], truncated: false });
    expect(result.records).toHaveLength(3);
    // Plain JSON: nothing from the driver survives.
    expect(JSON.parse(JSON.stringify(result.records))).toEqual(result.records);
    const pieces = backend.verbalize(result);
    expect(pieces).toHaveLength(3);
    for (const piece of pieces) {
      expect(piece.kind).toBe("path");
      expect(piece.text).toMatch(/^Tom Hanks -ACTED_IN \(roles: [^)]+\)-> \S.*$/);
      expect(piece.entities[0]).toBe("Tom Hanks");
      const data = piece.data as PathData;
      expect(data.nodes.map((n) => n.labels[0])).toEqual(["Person", "Movie"]);
      expect(data.edges[0]).toMatchObject({ type: "ACTED_IN", from: data.nodes[0]!.id, to: data.nodes[1]!.id });
      expect(piece.provenance).toMatchObject({ kb: ctx.kbId, kbName: "Movies", sourceObject: "Person", query: text, language: "cypher" });
      expect(String(piece.provenance.location.path).split(",")).toHaveLength(3);
    }
    // The same content at the same place keeps its id across runs.
    const rerun = backend.verbalize(await backend.execute({ language: "cypher", text }));
    expect(rerun.map((p) => p.id)).toEqual(pieces.map((p) => p.id));
  });

  it("sends parameters as parameters and verbalizes scalar results as rows", async () => {
    const result = await backend.execute({
      language: "cypher",
      text: "MATCH (m:Movie) WHERE m.released = $year RETURN m.title AS title, m.released AS released ORDER BY title LIMIT $n",
      params: { year: 1999, n: 10 },
    });
    expect(result.records).toEqual([
      { title: "Bicentennial Man", released: 1999 },
      { title: "Snow Falling on Cedars", released: 1999 },
      { title: "The Green Mile", released: 1999 },
      { title: "The Matrix", released: 1999 },
    ]);
    const pieces = backend.verbalize(result);
    expect(pieces[0]).toMatchObject({ kind: "row", text: "Query result / title: Bicentennial Man, released: 1999" });
    expect((pieces[0]!.data as RowData).columns).toEqual(["title", "released"]);
    // A quote in a parameter is data, not Cypher.
    const injected = await backend.execute({
      language: "cypher",
      text: "MATCH (p:Person) WHERE p.name = $name RETURN p",
      params: { name: "x' OR 1=1 CREATE (:Hacked) //" },
    });
    expect(injected.records).toEqual([]);
  });

  it("verbalizes a node as a labelled row and a relationship with its end nodes as a path", async () => {
    const node = await backend.execute({ language: "cypher", text: "MATCH (m:Movie {title: 'The Matrix'}) RETURN m" });
    const [piece] = backend.verbalize(node);
    expect(piece).toMatchObject({
      kind: "row",
      text: "Movie / The Matrix / released: 1999, tagline: Welcome to the Real World, title: The Matrix",
      entities: ["The Matrix"],
      provenance: { sourceObject: "Movie" },
    });
    const rel = await backend.execute({
      language: "cypher",
      text: "MATCH (a:Person {name: 'Keanu Reeves'})-[r:ACTED_IN]->(m:Movie {title: 'The Matrix'}) RETURN a, r, m",
    });
    const pieces = backend.verbalize(rel);
    expect(pieces.map((p) => [p.kind, p.text])).toEqual([["path", "Keanu Reeves -ACTED_IN (roles: Neo)-> The Matrix"]]);
  });

  describe("the shared attack corpus (tests/support/attack-corpus.ts): refused or contained, the graph untouched", () => {
    let before: Awaited<ReturnType<typeof snapshot>>;
    beforeAll(async () => {
      before = await snapshot();
    });

    it.each(queryAttacks("cypher").map((a) => [a.name, a] as const))("%s", async (_, attack) => {
      const outcome = await queryAttackOutcome(attack, () =>
        backend.execute({ language: "cypher", text: attack.text }, { timeoutMs: attack.timeoutMs ?? 5_000 }),
      );
      expect(outcome).toMatch(attack.says);
      expect(await snapshot()).toEqual(before);
    });

    it("leaves the server answering: nothing in the corpus exhausted its memory (issue 31, case 5)", async () => {
      const health = await backend.check();
      expect(health.ok).toBe(true);
      expect(health.message).toMatch(/^Connected \(Neo4j 5\./);
    });
  });

  describe("the attack corpus: each attempt is refused and the graph is untouched", () => {
    const attacks: [name: string, query: string, reason: RegExp][] = [
      ["CREATE", "CREATE (:Hacked {name: 'x'})", /only read the graph, and this one writes \(CREATE\)/],
      ["MERGE", "MERGE (p:Person {name: 'Mallory'})", /writes \(MERGE\)/],
      ["DELETE", "MATCH (n:Person {name: 'Tom Hanks'}) DELETE n", /writes \(DELETE\)/],
      ["DETACH DELETE", "MATCH (n) DETACH DELETE n", /writes \(DETACH DELETE\)/],
      ["SET", "MATCH (n:Person) SET n.hacked = true", /writes \(SET or REMOVE\)/],
      ["REMOVE a property", "MATCH (n:Person) REMOVE n.born", /writes \(SET or REMOVE\)/],
      ["REMOVE a label", "MATCH (n:Person) REMOVE n:Person", /writes \(REMOVE\)/],
      ["FOREACH", "FOREACH (i IN [1, 2] | CREATE (:Hacked))", /writes \(/],
      ["a write after a read", "MATCH (n:Person) WITH n LIMIT 1 CREATE (:Hacked)-[:OWNS]->(n)", /writes \(CREATE\)/],
      ["a write after a line comment", "// just reading, promise\nCREATE (:Hacked)", /writes \(CREATE\)/],
      ["a write after a block comment", "/* MATCH (n) RETURN n */ CREATE (:Hacked)", /writes \(CREATE\)/],
      ["a write inside a subquery", "MATCH (n:Person) CALL (n) { SET n.hacked = 1 } RETURN count(*)", /writes \(SET or REMOVE\)/],
      ["two statements", "MATCH (n) RETURN count(n); CREATE (:Hacked)", /only one Cypher statement/],
      ["LOAD CSV", "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", /LOAD CSV is not allowed/],
      [
        "CALL apoc.* (write)",
        "CALL apoc.create.node(['Hacked'], {}) YIELD node RETURN node",
        /APOC procedures are not allowed \(apoc\.create\.node\)/,
      ],
      ["CALL apoc.* (file read)", "CALL apoc.load.json('file:///etc/passwd') YIELD value RETURN value", /APOC procedures are not allowed/],
      ["CALL apoc.* quoted", "CALL `apoc`.`util`.sleep(60000)", /APOC procedures are not allowed \(apoc\.util\.sleep\)/],
      ["an apoc.* function", "RETURN apoc.text.join(['a', 'b'], ',') AS joined", /APOC functions are not allowed/],
      ["CALL dbms.*", "CALL dbms.listConfig() YIELD name RETURN name", /dbms\.\* procedures are not allowed/],
      ["CALL dbms.components", "CALL dbms.components() YIELD name RETURN name", /dbms\.\* procedures are not allowed/],
      ["a write procedure", "CALL db.createLabel('Hacked')", /procedure db\.createLabel is not allowed/],
      ["CREATE INDEX", "CREATE INDEX hacked FOR (n:Person) ON (n.hacked)", /changes the schema \(CREATE INDEX\)/],
      [
        "CREATE CONSTRAINT",
        "CREATE CONSTRAINT hacked FOR (n:Person) REQUIRE n.hacked IS UNIQUE",
        /changes the schema \(CREATE CONSTRAINT\)/,
      ],
      [
        "CALL { … } IN TRANSACTIONS (write)",
        "MATCH (n:Person) CALL { WITH n SET n.hacked = 1 } IN TRANSACTIONS RETURN count(*)",
        /writes|IN TRANSACTIONS/,
      ],
      [
        "CALL { … } IN TRANSACTIONS (read)",
        "UNWIND range(1, 3) AS i CALL { WITH i RETURN i * 2 AS j } IN TRANSACTIONS RETURN j",
        /IN TRANSACTIONS is not allowed/,
      ],
      ["TERMINATE TRANSACTIONS", "TERMINATE TRANSACTIONS 'neo4j-transaction-1'", /administration commands are not allowed/],
      ["SHOW TRANSACTIONS", "SHOW TRANSACTIONS", /administration commands are not allowed/],
    ];

    let before: Awaited<ReturnType<typeof snapshot>>;
    beforeAll(async () => {
      before = await snapshot();
    });

    it.each(attacks)("refuses %s", async (_name, text, reason) => {
      const attempt = backend.execute({ language: "cypher", text });
      await expect(attempt).rejects.toBeInstanceOf(QueryRejectedError);
      await expect(attempt).rejects.toThrow(reason);
      expect(await snapshot()).toEqual(before);
      expect(await count("MATCH (n:Hacked) RETURN count(n)")).toBe(0);
    });

    it("still refuses a write when the plan check is bypassed: the READ session is a second wall", async () => {
      const attempt = readCypher(
        { driver, errorContext: { uri: uri!, user } },
        { query: "CREATE (:Hacked {by: 'bypass'})", timeoutMs: 5_000, maxRows: 10, checkSafety: false },
        recordToJson,
      );
      await expect(attempt).rejects.toBeInstanceOf(QueryRejectedError);
      await expect(attempt).rejects.toThrow(/tried to write/);
      expect(await snapshot()).toEqual(before);
    });
  });

  it("reports syntax errors with Neo4j's message and positions in the caller's query", async () => {
    const attempt = backend.execute({ language: "cypher", text: "MATCH (n RETURN n" });
    await expect(attempt).rejects.toBeInstanceOf(QuerySyntaxError);
    await expect(attempt).rejects.toThrow(/Invalid input 'RETURN'.*\(line 1, column 10 \(offset: 9\)\)/);
    await expect(backend.execute({ language: "sql", text: "SELECT 1" })).rejects.toThrow(/answers Cypher, not sql/);
  });

  it("caps a million-row result at maxRows and flags it as truncated", async () => {
    const started = Date.now();
    const result = await backend.execute({ language: "cypher", text: "UNWIND range(1, 1000000) AS i RETURN i" }, { maxRows: 1000 });
    expect(result.records).toHaveLength(1000);
    expect(result.records[999]).toEqual({ i: 1000 });
    expect(result.truncated).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
    const exact = await backend.execute({ language: "cypher", text: "UNWIND range(1, 5) AS i RETURN i" }, { maxRows: 5 });
    expect(exact).toMatchObject({ truncated: false, records: [{ i: 1 }, { i: 2 }, { i: 3 }, { i: 4 }, { i: 5 }] });
  });

  it("stops a query that runs past its timeout", async () => {
    const started = Date.now();
    const attempt = backend.execute(
      { language: "cypher", text: "UNWIND range(1, 2000000000) AS i RETURN sum(i * i) AS s" },
      { timeoutMs: 1_000 },
    );
    await expect(attempt).rejects.toBeInstanceOf(QueryTimeoutError);
    await expect(attempt).rejects.toThrow("The query ran longer than 1000 ms and was stopped.");
    expect(Date.now() - started).toBeLessThan(8_000);
    // The connection is still good afterwards.
    expect((await backend.execute({ language: "cypher", text: "RETURN 1 AS one" })).records).toEqual([{ one: 1 }]);
  });

  it("stops a query when the caller aborts", async () => {
    const controller = new AbortController();
    const attempt = backend.execute(
      { language: "cypher", text: "UNWIND range(1, 2000000000) AS i RETURN sum(i) AS s" },
      { timeoutMs: 30_000, signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 300);
    await expect(attempt).rejects.toMatchObject({ name: "AbortError" });
  });

  it("previews a label as a small graph of its nodes and their neighbours", async () => {
    const preview = await backend.preview("Movie", { limit: 3 });
    expect(preview.kind).toBe("graph");
    if (preview.kind !== "graph") return;
    expect(preview).toMatchObject({ title: "Movie (38 nodes)", truncated: true });
    const movies = preview.data.nodes.filter((n) => n.labels.includes("Movie"));
    expect(movies.length).toBeGreaterThanOrEqual(3);
    expect(preview.data.nodes.some((n) => n.caption === "The Matrix")).toBe(true);
    expect(preview.data.edges.length).toBeGreaterThan(0);
    const ids = new Set(preview.data.nodes.map((n) => n.id));
    for (const e of preview.data.edges) expect(ids.has(e.from) && ids.has(e.to)).toBe(true);
    await expect(backend.preview("NoSuchLabel")).rejects.toBeInstanceOf(QueryExecutionError);
  });

  it("indexes labels, relationship types, property keys and node captions for entity linking", async () => {
    const entries = await backend.entityIndex();
    expect(entries).toContainEqual({ label: "Movie", kind: "label", ref: "Movie", sourceObject: "Movie" });
    expect(entries).toContainEqual({ label: "acted in", kind: "predicate", ref: "ACTED_IN", sourceObject: "Person" });
    expect(entries).toContainEqual({ label: "released", kind: "column", ref: "Movie.released", sourceObject: "Movie" });
    const tom = entries.find((e) => e.kind === "node" && e.label === "Tom Hanks");
    expect(tom?.sourceObject).toBe("Person");
    const byRef = await backend.execute({
      language: "cypher",
      text: "MATCH (n) WHERE elementId(n) = $id RETURN n.name AS name",
      params: { id: tom!.ref },
    });
    expect(byRef.records).toEqual([{ name: "Tom Hanks" }]);
    expect(entries.some((e) => e.kind === "node" && e.label === "Cast Away")).toBe(true);
    expect(await backend.entityIndex({ limit: 10 })).toHaveLength(10);
  });

  it("builds ego-graph queries that run under the same rules", async () => {
    const oneHop = await backend.execute(neighborhoodQuery({ names: ["Tom Hanks"], hops: 1, relationshipTypes: ["DIRECTED"] }));
    const texts = backend.verbalize(oneHop).map((p) => p.text);
    expect(texts).toEqual(["Tom Hanks -DIRECTED-> That Thing You Do"]);
    const twoHops = await backend.execute(neighborhoodQuery({ names: ["The Matrix"], hops: 2, limit: 20 }));
    expect(twoHops.records.length).toBe(20);
    expect(backend.verbalize(twoHops).every((p) => p.kind === "path" && p.text.startsWith("The Matrix <-"))).toBe(true);
  });

  // The whole pipeline over this graph. Kept in this file: one Neo4j database serves the file, and the
  // attack tests above compare node counts, so no other file may load or change graphs concurrently.
  describe("the answering pipeline over the movies graph", () => {
    let db: TestDatabase;
    let handle: DatabaseHandle;
    let deps: CatalogDeps;
    let admin: { id: string; role: "ADMIN"; groupIds: string[] };

    beforeAll(async () => {
      db = await createTestDatabase();
      handle = (await openAndBootstrap(db.env)).handle;
      deps = { dataDir: db.env.DATA_DIR, encryptionKey: Buffer.alloc(32, 9), datasetsDir: datasetsDir() };
      const row = await handle.prisma.user.findFirstOrThrow({ where: { role: "ADMIN" } });
      admin = { id: row.id, role: "ADMIN", groupIds: [] };
      await registerKnowledgeBase(
        handle.prisma,
        deps,
        admin.id,
        {
          kind: "CYPHER",
          name: "Movies graph",
          description: "Movies: who acted in, directed, produced and wrote which film.",
          connection: { uri: uri!, user, password },
        },
        [],
      );
    }, 120_000);
    afterAll(async () => {
      await closeAllBackends();
      await handle?.close();
      await db?.cleanup();
    });

    const ask = (question: string) => runPipeline(handle.prisma, deps, { question, user: admin });
    const cited = (o: RunOutcome) => o.evidence.filter((e) => o.answer.citations.includes(e.piece.id));

    it("answers along a graph path: the answer query's row is cited, the path it follows is evidence beside it", async () => {
      const o = await ask("Who directed Cast Away?");
      expect(o.answer.text).toBe("Robert Zemeckis");
      // A "who" question's answer query returns the person's caption (as Text2Cypher's gold queries do).
      expect(cited(o)[0]?.piece.kind).toBe("row");
      expect(cited(o)[0]?.piece.text).toContain("Robert Zemeckis");
      expect(cited(o)[0]?.piece.provenance.query).toMatch(/DIRECTED/);
      expect(o.evidence.some((e) => e.piece.kind === "path" && e.piece.text === "Cast Away <-DIRECTED- Robert Zemeckis")).toBe(true);
      expect(o.queries.every((q) => q.query.language === "cypher" && q.status === "ok")).toBe(true);
    });

    it("answers an intersection of two entities' ego-graphs with the paths connecting both (HybGRAG)", async () => {
      const o = await ask("Which movies did Tom Hanks and Meg Ryan act in?");
      expect(o.answer.text.split(/, | and /).sort()).toEqual(["Joe Versus the Volcano", "Sleepless in Seattle", "You've Got Mail"]);
      for (const title of ["Joe Versus the Volcano", "Sleepless in Seattle", "You've Got Mail"]) {
        // The answer query's rows are cited; the paths connecting both actors through each film are evidence beside them.
        expect(
          o.evidence.some((e) => e.piece.kind === "path" && [title, "Meg Ryan", "Tom Hanks"].every((name) => e.piece.text.includes(name))),
        ).toBe(true);
      }
    });

    it("answers from a node property", async () => {
      const o = await ask("When was The Matrix released?");
      expect(o.answer.text).toBe("1999");
    });
  });

  describe("the Northwind loader", () => {
    const northwindLabels = "n:Product OR n:Category OR n:Supplier OR n:Customer OR n:Order";
    afterAll(async () => {
      // Leave the database as the other tests expect it: the movies graph only.
      const session = driver.session();
      try {
        await session.run(`MATCH (n) WHERE ${northwindLabels} DETACH DELETE n`);
        for (const name of ["Product_productID", "Category_categoryID", "Supplier_supplierID", "Customer_customerID", "Order_orderID"]) {
          await session.run(`DROP CONSTRAINT ${name} IF EXISTS`);
        }
      } finally {
        await session.close();
      }
    });

    it("loads the graph of northwind.cypher from the local CSV files", async () => {
      const report = await loadNorthwindCsv(driver, datasetsDir());
      // 77 products, 8 categories, 29 suppliers, 91 customers, 830 orders; 77 PART_OF, 77 SUPPLIES, 830 PURCHASED, 2155 ORDERS.
      expect(report).toMatchObject({ nodes: 1035, relationships: 3139 });
      const northwind = createCypherBackend({ uri: uri!, user }, { password }, { ...ctx, kbId: "kb_northwind", kbName: "Northwind" });
      try {
        const d = await northwind.describe();
        for (const pattern of [
          "(:Product)-[:PART_OF]->(:Category)",
          "(:Supplier)-[:SUPPLIES]->(:Product)",
          "(:Customer)-[:PURCHASED]->(:Order)",
          "(:Order)-[:ORDERS]->(:Product)",
        ]) {
          expect(d.text).toContain(pattern);
        }
        expect(d.text).toContain("  - `unitPrice`: FLOAT Min: 2.5, Max: 263.5");
        expect(d.text).toContain("  - `discontinued`: BOOLEAN");
        expect(d.text).toContain("  - `quantity: INTEGER` Min: 1, Max: 130");
        // A Text2Cypher gold query for this graph runs as written.
        const result = await northwind.execute({
          language: "cypher",
          text: "MATCH (c:Customer)-[:PURCHASED]->(o:Order)-[:ORDERS]->(p:Product)-[:PART_OF]->(cat:Category {categoryName: 'Beverages'}) RETURN count(DISTINCT c) AS customers",
        });
        expect(result.records[0]?.customers).toBeGreaterThan(0);
        const [chai] = northwind.verbalize(
          await northwind.execute({ language: "cypher", text: "MATCH (p:Product {productName: 'Chai'}) RETURN p" }),
        );
        expect(chai?.text).toMatch(/^Product \/ Chai \/ .*unitPrice: 18/);
        const [order] = northwind.verbalize(
          await northwind.execute({ language: "cypher", text: "MATCH (o:Order {orderID: '10248'}) RETURN o" }),
        );
        expect(order?.entities).toEqual(["Order 10248"]);
      } finally {
        await northwind.close();
      }
    });
  });
});
