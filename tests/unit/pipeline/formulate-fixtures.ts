import type { KbStructure } from "@/lib/backends/types";
import { type Candidate, type EntityLink, type EntityMention, type Intent, intentSchema } from "@/lib/pipeline/contracts";
import { baseIntent } from "./intent-fixture";

/** Hand-made intents, links and KB structures for the formulate unit tests (no engine involved). */

export function intent(question: string, overrides: Partial<Omit<Intent, "question">> = {}): Intent {
  return intentSchema.parse(baseIntent(question, overrides));
}

export function link(kbId: string, kind: string, ref: string, label: string, score = 1, sourceObject: string | null = null): EntityLink {
  return { kbId, kind, ref, label, score, sourceObject };
}

/** A mention of `text` in `question` (span computed), with its links. */
export function mention(question: string, text: string, links: EntityLink[]): EntityMention {
  const at = question.indexOf(text);
  return { mention: text, span: at >= 0 ? [at, at + text.length] : null, links, fromContext: false };
}

export function candidate(kbId: string, kind: Candidate["kind"], sourceObjects: string[] = []): Candidate {
  return { kbId, kbName: `KB ${kbId}`, kind, sourceObjects, score: 1, reasons: [] };
}

const col = (name: string, type: string, examples: (string | number)[] = []) => ({ name, type, examples });

/** A sales database like the demo one: regions ← customers ← orders ← order_items → products. */
export const SHOP: Extract<KbStructure, { kind: "sql" }> = {
  kind: "sql",
  dialect: "sqlite",
  tables: [
    {
      name: "regions",
      columns: [col("region_id", "INTEGER", [1, 2]), col("region", "TEXT", ["Nordics"]), col("country", "TEXT", ["Sweden", "Germany"])],
      primaryKey: ["region_id"],
      foreignKeys: [],
      rows: 5,
    },
    {
      name: "customers",
      columns: [
        col("customer_id", "INTEGER", [1]),
        col("name", "TEXT", ["Alpenweg GmbH"]),
        col("segment", "TEXT", ["Retailer"]),
        col("region_id", "INTEGER", [1]),
        col("city", "TEXT", ["Munich"]),
      ],
      primaryKey: ["customer_id"],
      foreignKeys: [{ columns: ["region_id"], refTable: "regions", refColumns: ["region_id"] }],
      rows: 12,
    },
    {
      name: "products",
      columns: [
        col("product_id", "INTEGER", [1]),
        col("name", "TEXT", ["Summit 2 Tent"]),
        col("category", "TEXT", ["Tents"]),
        col("list_price", "REAL", [349]),
      ],
      primaryKey: ["product_id"],
      foreignKeys: [],
      rows: 10,
    },
    {
      name: "orders",
      columns: [
        col("order_id", "INTEGER", [1]),
        col("customer_id", "INTEGER", [3]),
        col("order_date", "TEXT", ["2024-08-06"]),
        col("status", "TEXT", ["shipped", "returned"]),
      ],
      primaryKey: ["order_id"],
      foreignKeys: [{ columns: ["customer_id"], refTable: "customers", refColumns: ["customer_id"] }],
      rows: 120,
    },
    {
      name: "order_items",
      columns: [
        col("order_id", "INTEGER", [1]),
        col("product_id", "INTEGER", [2]),
        col("quantity", "INTEGER", [3]),
        col("unit_price", "REAL", [349]),
      ],
      primaryKey: ["order_id", "product_id"],
      foreignKeys: [
        { columns: ["order_id"], refTable: "orders", refColumns: ["order_id"] },
        { columns: ["product_id"], refTable: "products", refColumns: ["product_id"] },
      ],
      rows: 240,
    },
  ],
};

/** A small movies graph: (:Person)-[:ACTED_IN|DIRECTED]->(:Movie). */
export const MOVIES: Extract<KbStructure, { kind: "graph" }> = {
  kind: "graph",
  labels: [
    {
      label: "Person",
      count: 133,
      properties: [
        { name: "name", types: ["STRING"], examples: ["Tom Hanks"] },
        { name: "born", types: ["INTEGER"], examples: [1956] },
      ],
    },
    {
      label: "Movie",
      count: 38,
      properties: [
        { name: "title", types: ["STRING"], examples: ["Apollo 13"] },
        { name: "released", types: ["INTEGER"], examples: [1995] },
        { name: "tagline", types: ["STRING"], examples: ["Houston, we have a problem."] },
      ],
    },
  ],
  relationships: [
    { type: "ACTED_IN", count: 172, properties: [{ name: "roles", types: ["LIST"] }] },
    { type: "DIRECTED", count: 44, properties: [] },
    { type: "PRODUCED", count: 15, properties: [] },
  ],
  patterns: [
    { from: "Person", type: "ACTED_IN", to: "Movie", count: 172 },
    { from: "Person", type: "DIRECTED", to: "Movie", count: 44 },
    { from: "Person", type: "PRODUCED", to: "Movie", count: 15 },
  ],
  captionKeys: { Person: "name", Movie: "title" },
};

export const EX = "https://data.aurora-outfitters.example/";
const RDFS = "http://www.w3.org/2000/01/rdf-schema#";
const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const XSD = "http://www.w3.org/2001/XMLSchema#";

/** The demo product/organisation graph's structure. */
export const PRODUCTS_RDF: Extract<KbStructure, { kind: "rdf" }> = {
  kind: "rdf",
  prefixes: { ex: EX, rdfs: RDFS },
  classes: [
    { iri: `${EX}Product`, label: "Product", instances: 10 },
    { iri: `${EX}Organisation`, label: "Organisation", instances: 6 },
    { iri: `${EX}Person`, label: "Person", instances: 3 },
    { iri: `${RDFS}Class`, label: "Class", instances: 5 },
  ],
  predicates: [
    { iri: `${RDFS}label`, label: "label", count: 44, domains: [], ranges: [`${XSD}string`], literal: true },
    { iri: RDF_TYPE, label: "type", count: 35, domains: [], ranges: [], literal: false },
    { iri: `${EX}madeBy`, label: "made by", count: 10, domains: [`${EX}Product`], ranges: [`${EX}Organisation`], literal: false },
    { iri: `${EX}ceoOf`, label: "chief executive of", count: 2, domains: [`${EX}Person`], ranges: [`${EX}Organisation`], literal: false },
    { iri: `${EX}locatedIn`, label: "located in", count: 6, domains: [`${EX}Organisation`], ranges: [], literal: false },
    { iri: `${EX}weightGrams`, label: "weight in grams", count: 10, domains: [`${EX}Product`], ranges: [`${XSD}integer`], literal: true },
    { iri: `${EX}material`, label: "material", count: 10, domains: [`${EX}Product`], ranges: [`${XSD}string`], literal: true },
  ],
  labelPredicates: [`${RDFS}label`],
};

export const DOCS: Extract<KbStructure, { kind: "documents" }> = {
  kind: "documents",
  documents: 3,
  tables: [
    {
      key: "annual-report-2025-md#table-1",
      caption: "Revenue by region",
      section: "Results",
      columns: ["Region", "Revenue 2025 (MSEK)", "Growth"],
      rows: 4,
    },
  ],
};
