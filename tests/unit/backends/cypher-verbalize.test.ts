import { describe, expect, it } from "vitest";
import { describeGraph, labelSourceUnits } from "@/lib/backends/cypher/describe";
import type { GraphSchema } from "@/lib/backends/cypher/schema";
import type { GraphNodeValue, GraphRelationshipValue } from "@/lib/backends/cypher/values";
import { verbalizeCypher } from "@/lib/backends/cypher/verbalize";
import { DESCRIPTOR_MAX_CHARS } from "@/lib/backends/descriptor";
import type { PathData, RawResult, RowData } from "@/lib/backends/types";

const kb = { kbId: "kb_movies", kbName: "Movies" };

const tom: GraphNodeValue = { __kind: "node", id: "4:db:71", labels: ["Person"], properties: { name: "Tom Hanks", born: 1956 } };
const castAway: GraphNodeValue = { __kind: "node", id: "4:db:144", labels: ["Movie"], properties: { title: "Cast Away", released: 2000 } };
const zemeckis: GraphNodeValue = { __kind: "node", id: "4:db:150", labels: ["Person"], properties: { name: "Robert Zemeckis" } };
const actedIn: GraphRelationshipValue = {
  __kind: "relationship",
  id: "5:db:1",
  type: "ACTED_IN",
  start: tom.id,
  end: castAway.id,
  properties: { roles: ["Chuck Noland"] },
};
const directed: GraphRelationshipValue = {
  __kind: "relationship",
  id: "5:db:2",
  type: "DIRECTED",
  start: zemeckis.id,
  end: castAway.id,
  properties: {},
};

function raw(text: string, columns: string[], records: Record<string, unknown>[]): RawResult {
  return { query: { language: "cypher", text }, columns, records, truncated: false, elapsedMs: 1 };
}

describe("verbalizeCypher", () => {
  it("keeps the values bound to the query's parameters in each piece's provenance, without the parameters it has none", () => {
    const filtered: RawResult = {
      ...raw("MATCH (m:Movie) WHERE m.title = $p0 AND m.released > $p1 RETURN m.title AS title", ["title"], [{ title: "Cast Away" }]),
      query: {
        language: "cypher",
        text: "MATCH (m:Movie) WHERE m.title = $p0 AND m.released > $p1 RETURN m.title AS title",
        params: { p0: "Cast Away", p1: 1999, p2: { nested: true }, p3: ["a", "b"] },
      },
    };
    const [piece] = verbalizeCypher(filtered, kb);
    expect(piece!.provenance.params).toEqual({ p0: "Cast Away", p1: 1999, p3: "a, b" });
    const [plain] = verbalizeCypher(raw("MATCH (m:Movie) RETURN m.title AS title", ["title"], [{ title: "Cast Away" }]), kb);
    expect(plain!.provenance).not.toHaveProperty("params");
  });

  it("turns a path into A -REL (props)-> B <-REL- C with its data, entities and a location of element ids", () => {
    const result = raw(
      "MATCH p=… RETURN p",
      ["p"],
      [{ p: { __kind: "path", nodes: [tom, castAway, zemeckis], relationships: [actedIn, directed] } }],
    );
    const [piece, ...rest] = verbalizeCypher(result, kb);
    expect(rest).toEqual([]);
    expect(piece).toMatchObject({
      kind: "path",
      text: "Tom Hanks -ACTED_IN (roles: Chuck Noland)-> Cast Away <-DIRECTED- Robert Zemeckis",
      entities: ["Tom Hanks", "Cast Away", "Robert Zemeckis"],
      provenance: {
        kb: "kb_movies",
        kbName: "Movies",
        sourceObject: "Person",
        query: "MATCH p=… RETURN p",
        language: "cypher",
        location: { path: "4:db:71,5:db:1,4:db:144,5:db:2,4:db:150" },
      },
    });
    const data = piece!.data as PathData;
    expect(data.nodes.map((n) => n.caption)).toEqual(["Tom Hanks", "Cast Away", "Robert Zemeckis"]);
    expect(data.edges).toEqual([
      { from: tom.id, to: castAway.id, type: "ACTED_IN", properties: { roles: ["Chuck Noland"] } },
      { from: zemeckis.id, to: castAway.id, type: "DIRECTED", properties: {} },
    ]);
    expect(piece!.id).toMatch(/^ev_[0-9a-f]{16}$/);
    expect(verbalizeCypher(result, kb)[0]!.id).toBe(piece!.id);
  });

  it("joins a returned relationship to its end nodes from the same record, or keeps their ids", () => {
    const withNodes = verbalizeCypher(raw("q", ["a", "r", "m"], [{ a: tom, r: actedIn, m: castAway }]), kb);
    expect(withNodes.map((p) => [p.kind, p.text])).toEqual([["path", "Tom Hanks -ACTED_IN (roles: Chuck Noland)-> Cast Away"]]);
    const bare = verbalizeCypher(raw("q", ["r"], [{ r: directed }]), kb);
    expect(bare[0]!.text).toBe("4:db:150 -DIRECTED-> 4:db:144");
    expect(bare[0]!.provenance.location).toEqual({ path: "4:db:150,5:db:2,4:db:144" });
  });

  it("reads a node as a row of its label: Label / caption / prop: value", () => {
    const pieces = verbalizeCypher(raw("MATCH (m:Movie) RETURN m", ["m"], [{ m: castAway }, { m: castAway }]), kb);
    expect(pieces).toHaveLength(1);
    expect(pieces[0]).toMatchObject({
      kind: "row",
      text: "Movie / Cast Away / released: 2000, title: Cast Away",
      entities: ["Cast Away"],
      provenance: { sourceObject: "Movie", location: { node: castAway.id } },
    });
    expect(pieces[0]!.data as RowData).toEqual({
      table: "Movie",
      section: "Cast Away",
      columns: ["released", "title"],
      values: [2000, "Cast Away"],
      key: { elementId: castAway.id },
    });
  });

  it("reads scalar records as rows of the query result, showing nodes by caption and lists joined", () => {
    const result = raw(
      "MATCH … RETURN m.title AS title, m.released AS year, collect(p) AS cast, m",
      ["title", "year", "cast", "m"],
      [
        { title: "Cast Away", year: 2000, cast: [tom, zemeckis], m: castAway },
        {
          title: "A very long sentence that is surely not the name of anything that a question would ever mention at all",
          year: null,
          cast: [],
          m: null,
        },
      ],
    );
    const [first, second] = verbalizeCypher(result, kb);
    expect(first).toMatchObject({
      kind: "row",
      text: "Query result / title: Cast Away, year: 2000, cast: Tom Hanks; Robert Zemeckis, m: Cast Away",
      entities: ["Cast Away", "Tom Hanks", "Robert Zemeckis"],
      provenance: { sourceObject: null, location: { row: 0 } },
    });
    expect((first!.data as RowData).columns).toEqual(["title", "year", "cast", "m"]);
    expect(second!.entities).toEqual([]);
    expect(second!.text).toMatch(/^Query result \/ title: A very long/);
    expect(first!.id).not.toBe(second!.id);
  });

  it("gives the same row of another query another id, and honours an explicit source object", () => {
    const a = verbalizeCypher(raw("RETURN 1 AS x", ["x"], [{ x: 1 }]), kb);
    const b = verbalizeCypher(raw("RETURN 1 AS x, 2 AS y", ["x"], [{ x: 1 }]), kb);
    expect(a[0]!.id).not.toBe(b[0]!.id);
    expect(verbalizeCypher(raw("q", ["m"], [{ m: castAway }]), kb, { sourceObject: "Films" })[0]!.provenance.sourceObject).toBe("Films");
  });
});

const schema: GraphSchema = {
  serverVersion: "Neo4j 5.26.18",
  database: "neo4j",
  nodeCount: 171,
  relationshipCount: 253,
  labels: [
    {
      label: "Movie",
      count: 38,
      sampled: 38,
      caption: { key: "title", kind: "name" },
      properties: [
        { key: "released", type: "INTEGER", present: 38, distinct: ["1999", "2003"], min: "1975", max: "2012" },
        { key: "title", type: "STRING", present: 38, distinct: Array.from({ length: 38 }, (_, i) => `Movie ${i}`) },
        { key: "genre", type: "STRING", present: 30, distinct: ["Drama", "Comedy's"] },
        { key: "embedding", type: "LIST", present: 38, distinct: [], minSize: 1536, maxSize: 1536 },
        { key: "tags", type: "LIST", present: 38, distinct: [], minSize: 1, maxSize: 6 },
        { key: "restricted", type: "BOOLEAN", present: 38, distinct: ["true", "false"] },
      ],
    },
    {
      label: "Person",
      count: 133,
      sampled: 133,
      caption: { key: "name", kind: "name" },
      properties: [{ key: "name", type: "STRING", present: 133, distinct: ["Keanu Reeves"] }],
    },
  ],
  relationshipTypes: [
    {
      type: "ACTED_IN",
      count: 172,
      sampled: 172,
      properties: [{ key: "roles", type: "LIST", present: 172, distinct: [], minSize: 1, maxSize: 6 }],
    },
    { type: "FOLLOWS", count: 3, sampled: 3, properties: [] },
  ],
  patterns: [
    { from: "Person", type: "ACTED_IN", to: "Movie", count: 172, atLeast: false },
    { from: "Person", type: "FOLLOWS", to: "Person", count: 100000, atLeast: true },
  ],
};

describe("describeGraph", () => {
  it("writes the Text2Cypher schema layout with counts", () => {
    const d = describeGraph(schema, "Movies");
    expect(d.text).toBe(
      [
        'Neo4j property graph "Movies" (Neo4j 5.26.18, database neo4j): 171 nodes, 253 relationships. Query it with read-only Cypher.',
        "Node properties:",
        "- **Movie** (38 nodes)",
        "  - `released`: INTEGER Min: 1975, Max: 2012",
        '  - `title`: STRING Example: "Movie 0"',
        "  - `genre`: STRING Available options: ['Drama', 'Comedy\\'s']",
        "  - `embedding`: LIST",
        "  - `tags`: LIST Min Size: 1, Max Size: 6",
        "  - `restricted`: BOOLEAN",
        "- **Person** (133 nodes)",
        "  - `name`: STRING Available options: ['Keanu Reeves']",
        "Relationship properties:",
        "- **ACTED_IN**",
        "  - `roles: LIST` Min Size: 1, Max Size: 6",
        "The relationships:",
        "(:Person)-[:ACTED_IN]->(:Movie) (172 relationships)",
        "(:Person)-[:FOLLOWS]->(:Person) (at least 100000 relationships)",
      ].join("\n"),
    );
    expect(d.compact).toBe(
      'Neo4j property graph "Movies": 171 nodes, 253 relationships.\nLabels: Movie(released, title, genre, embedding, tags, restricted); Person(name)\nRelationships: (:Person)-[:ACTED_IN]->(:Movie), (:Person)-[:FOLLOWS]->(:Person)',
    );
    expect(d.stats).toEqual({ nodes: 171, relationships: 253, labels: 2, relationshipTypes: 2, patterns: 2 });
    expect(describeGraph(structuredClone(schema), "Movies").version).toBe(d.version);
    expect(describeGraph({ ...schema, nodeCount: 172 }, "Movies").version).not.toBe(d.version);
  });

  it("stays within the descriptor bound on a huge schema and says what it left out", () => {
    const many: GraphSchema = {
      ...schema,
      labels: Array.from({ length: 200 }, (_, i) => ({
        label: `Label${i}`,
        count: 1,
        sampled: 1,
        caption: null,
        properties: Array.from({ length: 40 }, (_, j) => ({ key: `property${j}`, type: "STRING", present: 1, distinct: ["v".repeat(60)] })),
      })),
    };
    const d = describeGraph(many, "Big");
    expect(d.text.length).toBeLessThanOrEqual(DESCRIPTOR_MAX_CHARS);
    expect(d.text).toMatch(/… \(\d+ more lines omitted\)$/);
  });
});

describe("labelSourceUnits", () => {
  it("makes one GRAPH unit per label with a generated description and its relationships", () => {
    const [movie, person] = labelSourceUnits(schema);
    expect(movie).toEqual({
      key: "Movie",
      name: "Movie",
      contentType: "GRAPH",
      description:
        "Label Movie: 38 nodes; properties released (integer), title (string), genre (string), embedding (list), tags (list), restricted (boolean); relationships: (:Person)-[:ACTED_IN]->(:Movie).",
      tags: ["neo4j", "node label", "ACTED_IN"],
      metadata: {
        label: "Movie",
        nodeCount: 38,
        properties: ["released", "title", "genre", "embedding", "tags", "restricted"],
        relationshipTypes: ["ACTED_IN"],
        patterns: ["(:Person)-[:ACTED_IN]->(:Movie)"],
        captionProperty: "title",
      },
    });
    expect(person!.description).toBe(
      "Label Person: 133 nodes; properties name (string); relationships: (:Person)-[:ACTED_IN]->(:Movie), (:Person)-[:FOLLOWS]->(:Person).",
    );
  });
});
