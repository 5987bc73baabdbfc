import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDocumentsBackend, documentsConfigSchema } from "@/lib/backends/documents";
import { ingestFiles } from "@/lib/ingest/documents/ingest-files";
import { createSparqlBackend, storeRdfFiles } from "@/lib/backends/sparql";
import { createSqlBackend } from "@/lib/backends/sql";
import type { BackendContext, KbStructure, KnowledgeBackend } from "@/lib/backends/types";
import { createDemoSalesDatabase } from "@/lib/demo/sales-database";

/** KnowledgeBackend.structure() on real engines: the data query formulation links questions against. */

const DATASETS = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");
const SPIDER_CONCERTS = path.join(DATASETS, "spider", "database", "concert_singer", "concert_singer.sqlite");
const DEMO = path.resolve("lib/demo/content");
const EX = "https://data.aurora-outfitters.example/";
const dirs: string[] = [];
const opened: KnowledgeBackend[] = [];

function kb(name: string): BackendContext {
  const storageDir = mkdtempSync(path.join(tmpdir(), "mosaic-structure-"));
  dirs.push(storageDir);
  return { kbId: `kb-${name}`, kbName: name, storageDir };
}
function keep<T extends KnowledgeBackend>(b: T): T {
  opened.push(b);
  return b;
}

afterAll(async () => {
  await Promise.all(opened.map((b) => b.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("structure() of a SQLite KB", () => {
  it("lists tables with typed columns, examples, keys (referenced columns filled in) and row counts", async () => {
    const ctx = kb("sales");
    createDemoSalesDatabase(path.join(ctx.storageDir, "sales.sqlite"));
    const backend = keep(createSqlBackend({ dialect: "sqlite", file: "sales.sqlite" }, {}, ctx));
    const s = (await backend.structure()) as Extract<KbStructure, { kind: "sql" }>;
    expect(s.kind).toBe("sql");
    expect(s.dialect).toBe("sqlite");
    expect(s.tables.map((t) => t.name).sort()).toEqual(["customers", "order_items", "orders", "products", "regions"]);
    const items = s.tables.find((t) => t.name === "order_items")!;
    expect(items.primaryKey).toEqual(["order_id", "product_id"]);
    expect(items.foreignKeys).toEqual(
      expect.arrayContaining([
        { columns: ["order_id"], refTable: "orders", refColumns: ["order_id"] },
        { columns: ["product_id"], refTable: "products", refColumns: ["product_id"] },
      ]),
    );
    const products = s.tables.find((t) => t.name === "products")!;
    expect(products.rows).toBe(10);
    expect(products.columns.map((c) => [c.name, c.type])).toEqual([
      ["product_id", "INTEGER"],
      ["name", "TEXT"],
      ["category", "TEXT"],
      ["list_price", "REAL"],
    ]);
    expect(products.columns.find((c) => c.name === "name")!.examples).toEqual(["Summit 2 Tent", "Basecamp 4 Tent", "Fjord Down Jacket"]);
    expect(s.tables.find((t) => t.name === "orders")!.rows).toBe(120);
  });

  it.skipIf(!existsSync(SPIDER_CONCERTS))(
    "resolves foreign keys SQLite declares without referenced columns (Spider concert_singer)",
    async () => {
      const backend = keep(createSqlBackend({ dialect: "sqlite", file: SPIDER_CONCERTS }, {}, kb("concert_singer")));
      const s = (await backend.structure()) as Extract<KbStructure, { kind: "sql" }>;
      const links = s.tables.find((t) => t.name === "singer_in_concert")!;
      for (const fk of links.foreignKeys) {
        const target = s.tables.find((t) => t.name === fk.refTable)!;
        expect(fk.refColumns).toHaveLength(fk.columns.length);
        for (const c of fk.refColumns) expect(target.columns.map((x) => x.name)).toContain(c);
      }
      expect(s.tables.find((t) => t.name === "singer")!.rows).toBe(6);
    },
  );
});

describe("structure() of an embedded RDF KB", () => {
  it("lists classes and predicates with labels, domains, ranges, literal flags, label predicates and prefixes", async () => {
    const ctx = kb("products-rdf");
    await storeRdfFiles(ctx, [{ name: "products.ttl", bytes: readFileSync(path.join(DEMO, "products.ttl")) }]);
    const backend = keep(createSparqlBackend({ mode: "embedded" }, {}, ctx));
    const s = (await backend.structure()) as Extract<KbStructure, { kind: "rdf" }>;
    expect(s.kind).toBe("rdf");
    expect(s.classes.find((c) => c.iri === `${EX}Product`)).toEqual({ iri: `${EX}Product`, label: "Product", instances: 10 });
    expect(s.classes.find((c) => c.iri === `${EX}Category`)?.label).toBe("Product category");
    const ceo = s.predicates.find((p) => p.iri === `${EX}ceoOf`)!;
    expect(ceo).toMatchObject({
      label: "chief executive of",
      count: 2,
      domains: [`${EX}Person`],
      ranges: [`${EX}Organisation`],
      literal: false,
    });
    expect(s.predicates.find((p) => p.iri === `${EX}weightGrams`)).toMatchObject({
      label: "weight in grams",
      literal: true,
      ranges: ["http://www.w3.org/2001/XMLSchema#integer"],
    });
    expect(s.labelPredicates).toEqual(["http://www.w3.org/2000/01/rdf-schema#label"]);
    expect(Object.values(s.prefixes)).toContain(EX);
  });
});

describe("structure() of a document collection", () => {
  it("counts the documents and lists each document table with caption, section, columns and rows", async () => {
    const ctx = kb("policies");
    const files = ["annual-report-2025.md", "travel-and-expense-policy.md"].map((name) => ({
      name,
      bytes: readFileSync(path.join(DEMO, name)),
    }));
    const config = documentsConfigSchema.parse({});
    await ingestFiles(ctx, files, { config });
    const backend = keep(createDocumentsBackend(config, {}, ctx));
    const s = (await backend.structure()) as Extract<KbStructure, { kind: "documents" }>;
    expect(s.kind).toBe("documents");
    expect(s.documents).toBe(2);
    const results = s.tables.find((t) => t.columns.includes("Growth"))!;
    expect(results).toMatchObject({
      section: "Results by region",
      columns: ["Region", "Revenue 2024 (EUR million)", "Revenue 2025 (EUR million)", "Growth"],
      rows: 4,
    });
    expect(results.key).toMatch(/#table-1$/);
    expect(s.tables.find((t) => t.columns.includes("Per diem (EUR)"))?.rows).toBe(5);
  });
});
