// Shared fixtures for the select, pool, rerank, scorer and select-evidence unit tests: a mixed catalog
// with distractors, and evidence pieces of all four kinds built the way the backends build them.
import { evidenceId, linearizePath, linearizeRow, linearizeTriple } from "@/lib/backends/evidence";
import type { EvidencePiece, PathData, QueryLanguage, Scalar } from "@/lib/backends/types";
import type { CatalogEntry } from "@/lib/catalog/snapshot";
import type { StageContext, TraceEventInput } from "@/lib/pipeline/stage";
import type { EntityLink, EntityMention, Intent } from "@/lib/pipeline/types";
import { baseIntent } from "./intent-fixture";

export function intent(question: string, extra: Partial<Intent> = {}): Intent {
  return baseIntent(question, extra);
}

export function mention(text: string, links: Partial<EntityLink>[] = []): EntityMention {
  return {
    mention: text,
    span: null,
    fromContext: false,
    links: links.map((l) => ({ kbId: "kb", label: text, kind: "value", ref: text, sourceObject: null, score: 1, ...l })),
  };
}

export function context(): StageContext & { events: TraceEventInput[]; controller: AbortController } {
  const controller = new AbortController();
  const events: TraceEventInput[] = [];
  return { signal: controller.signal, deadline: Date.now() + 60_000, trace: (e) => events.push(e), events, controller };
}

const table = (key: string, description: string, tags: string[] = ["sqlite", "table"]) => ({
  key,
  name: key,
  description,
  tags,
  contentType: "TABLE" as const,
});

export const CATALOG: CatalogEntry[] = [
  {
    kbId: "kb-sales",
    kbName: "Aurora sales database",
    kind: "SQL",
    description: "Orders, order lines, products, customers and sales regions of Aurora Outfitters for 2024 and 2025.",
    descriptor:
      'SQLite "sales": 5 tables.\norders(order_id, customer_id→customers, order_date, region_id→regions, total)\norder_lines(order_id→orders, product_id→products, quantity, unit_price)\nproducts(product_id, name, category, list_price)\ncustomers(customer_id, name, country)\nregions(region_id, name)',
    sourceObjects: [
      table("orders", "Table orders: 1200 rows; columns order_id, customer_id (→ customers), order_date, region_id (→ regions), total."),
      table("order_lines", "Table order_lines: 3400 rows; columns order_id, product_id, quantity, unit_price."),
      table(
        "products",
        "Table products: 40 rows; columns product_id, name, category, list_price. Examples: name: Summit 2 Tent, Trail Runner Shoe.",
      ),
      table("customers", "Table customers: 300 rows; columns customer_id, name, country. Examples: country: Norway, Germany."),
      table("regions", "Table regions: 4 rows; columns region_id, name. Examples: name: Nordics, DACH, Benelux."),
    ],
  },
  {
    kbId: "kb-docs",
    kbName: "Aurora policies and reports",
    kind: "DOCUMENTS",
    description: "Company policies (travel and expenses, returns and warranty) and the 2025 annual report with results by region.",
    descriptor: "Document collection: 3 documents (travel and expense policy, annual report 2025, returns policy), 1 table.",
    sourceObjects: [
      {
        key: "collection",
        name: "Aurora policies and reports",
        description: "3 documents in 40 passages, mostly about travel, expenses, returns, warranty, revenue.",
        tags: ["documents", "markdown", "html"],
        contentType: "TEXT",
      },
      {
        key: "annual-report#table-1",
        name: "Results by region",
        description: 'Table from "Annual report 2025" with 4 rows; columns: Region, Revenue, Growth.',
        tags: ["table", "markdown"],
        contentType: "TABLE",
      },
    ],
  },
  {
    kbId: "kb-graph",
    kbName: "Aurora product and organisation graph",
    kind: "SPARQL",
    description:
      "Products with their categories, materials and manufacturers; the company's subsidiaries, suppliers, locations and executives.",
    descriptor:
      "RDF graph: classes Product, Category, Material, Manufacturer, Subsidiary, Executive; predicates madeOf, manufacturedBy, locatedIn, hasCEO.",
    sourceObjects: [
      {
        key: "http://aurora.example/Product",
        name: "Product",
        description: "Class Product: 40 instances; predicates madeOf, manufacturedBy, category.",
        tags: ["class"],
        contentType: "GRAPH",
      },
      {
        key: "http://aurora.example/Executive",
        name: "Executive",
        description: "Class Executive: 5 instances; predicates name, role, worksFor.",
        tags: ["class"],
        contentType: "GRAPH",
      },
    ],
  },
  {
    kbId: "kb-movies",
    kbName: "Movies graph",
    kind: "CYPHER",
    description: "People who acted in, directed, produced or reviewed films.",
    descriptor:
      "Neo4j graph: (:Person {name, born}) -[:ACTED_IN {roles}]-> (:Movie {title, released, tagline}); (:Person)-[:DIRECTED]->(:Movie).",
    sourceObjects: [
      {
        key: "Person",
        name: "Person",
        description: "Label Person: 133 nodes; properties name, born.",
        tags: ["label"],
        contentType: "GRAPH",
      },
      {
        key: "Movie",
        name: "Movie",
        description: "Label Movie: 38 nodes; properties title, released, tagline.",
        tags: ["label"],
        contentType: "GRAPH",
      },
    ],
  },
  // Distractors: real-looking sources about other things.
  {
    kbId: "kb-concerts",
    kbName: "Spider: concert_singer",
    kind: "SQL",
    description: "Spider benchmark database concert singer (SQLite).",
    descriptor:
      'SQLite "concert_singer": 4 tables.\nstadium(Stadium_ID, Location, Name, Capacity)\nsinger(Singer_ID, Name, Country, Song_Name, Age)\nconcert(concert_ID, concert_Name, Theme, Stadium_ID→stadium, Year)\nsinger_in_concert(concert_ID→concert, Singer_ID→singer)',
    sourceObjects: [
      table("singer", "Table singer: 6 rows; columns Singer_ID, Name, Country, Song_Name, Age. Examples: Name: Joe Sharp, Timbaland."),
      table("concert", "Table concert: 6 rows; columns concert_ID, concert_Name, Theme, Stadium_ID, Year."),
      table("stadium", "Table stadium: 9 rows; columns Stadium_ID, Location, Name, Capacity."),
    ],
  },
  {
    kbId: "kb-flights",
    kbName: "Spider: flight_2",
    kind: "SQL",
    description: "Spider benchmark database flight 2 (SQLite).",
    descriptor:
      'SQLite "flight_2": 3 tables.\nairlines(uid, Airline, Abbreviation, Country)\nairports(City, AirportCode, AirportName, Country)\nflights(Airline, FlightNo, SourceAirport, DestAirport)',
    sourceObjects: [
      table("airlines", "Table airlines: 12 rows; columns uid, Airline, Abbreviation, Country."),
      table("airports", "Table airports: 100 rows; columns City, AirportCode, AirportName, Country."),
      table("flights", "Table flights: 1200 rows; columns Airline, FlightNo, SourceAirport, DestAirport."),
    ],
  },
  {
    kbId: "kb-scifact",
    kbName: "SciFact abstracts",
    kind: "DOCUMENTS",
    description: "SciFact: 5,183 scientific abstracts (biomedical research findings) used to verify scientific claims.",
    descriptor: "Document collection: 5183 documents, mostly about cells, patients, protein, expression, risk.",
    sourceObjects: [
      {
        key: "collection",
        name: "SciFact abstracts",
        description: "5183 documents, mostly about cells, patients, protein, expression.",
        tags: ["documents"],
        contentType: "TEXT",
      },
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// Evidence pieces, built like the backends build them.

export function passage(
  kbId: string,
  kbName: string,
  documentId: string,
  chunkIndex: number,
  text: string,
  entities: string[] = [],
): EvidencePiece {
  const location = { document: documentId, chunk: chunkIndex };
  return {
    id: evidenceId(kbId, "passage", location),
    kind: "passage",
    text,
    provenance: { kb: kbId, kbName, sourceObject: documentId, query: text.split(" ").slice(0, 3).join(" "), language: "search", location },
    entities,
    data: { documentId, documentTitle: documentId, chunkIndex },
  };
}

export function row(
  kbId: string,
  kbName: string,
  tableName: string,
  columns: string[],
  values: Scalar[],
  query: string,
  rowIndex: number,
  language: QueryLanguage = "sql",
): EvidencePiece {
  const location = { table: tableName, query, row: rowIndex };
  return {
    id: evidenceId(kbId, "row", location),
    kind: "row",
    text: linearizeRow(tableName, undefined, columns, values),
    provenance: { kb: kbId, kbName, sourceObject: tableName, query, language, location },
    entities: values.filter((v): v is string => typeof v === "string" && /^[A-Z]/.test(v)),
    data: { table: tableName, columns, values, rowIndex },
  };
}

export function triple(
  kbId: string,
  kbName: string,
  s: [string, string],
  p: [string, string],
  o: [string, string],
  query = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }",
  datatype?: string,
): EvidencePiece {
  const location = { subject: s[0], predicate: p[0], object: o[0] };
  const literal = !o[0].startsWith("http");
  return {
    id: evidenceId(kbId, "triple", location),
    kind: "triple",
    text: linearizeTriple(s[1], p[1], o[1]),
    provenance: { kb: kbId, kbName, sourceObject: null, query, language: "sparql", location },
    entities: literal ? [s[1]] : [s[1], o[1]],
    data: {
      subject: { value: s[0], label: s[1], termType: "NamedNode" },
      predicate: { value: p[0], label: p[1], termType: "NamedNode" },
      object: { value: o[0], label: o[1], termType: literal ? "Literal" : "NamedNode", ...(datatype ? { datatype } : {}) },
    },
  };
}

export function path(
  kbId: string,
  kbName: string,
  nodes: { id: string; label: string; caption: string; properties?: Record<string, Scalar> }[],
  rels: string[],
  query = "MATCH p = (a)-[*1..2]-(b) RETURN p",
): EvidencePiece {
  const data: PathData = {
    nodes: nodes.map((n) => ({
      id: n.id,
      labels: [n.label],
      caption: n.caption,
      properties: { name: n.caption, ...(n.properties ?? {}) },
    })),
    edges: rels.map((type, i) => ({ from: nodes[i].id, to: nodes[i + 1].id, type, properties: {} })),
  };
  const location = { path: nodes.map((n) => n.id).join(">") };
  return {
    id: evidenceId(kbId, "path", location),
    kind: "path",
    text: linearizePath(
      data.nodes,
      rels.map((type) => ({ type, forward: true })),
    ),
    provenance: { kb: kbId, kbName, sourceObject: nodes[0].label, query, language: "cypher", location },
    entities: nodes.map((n) => n.caption),
    data,
  };
}

/** Filler passages that share a word or two with many questions but answer none. */
export function fillerPassages(n: number, kbId = "kb-scifact", kbName = "SciFact abstracts"): EvidencePiece[] {
  const topics = [
    "cell growth in patients",
    "protein expression risk",
    "region of the genome",
    "annual cohort follow-up",
    "the total number of samples",
  ];
  return Array.from({ length: n }, (_, i) =>
    passage(
      kbId,
      kbName,
      `doc-${i}`,
      0,
      `Study ${i}: we measured ${topics[i % topics.length]} across ${i + 3} sites in a controlled trial.`,
    ),
  );
}
