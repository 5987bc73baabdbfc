import neo4j from "neo4j-driver";
import { describe, expect, it } from "vitest";
import { chooseCaptionKey, nodeCaption, scalarProperties, toScalar } from "@/lib/backends/cypher/caption";
import { cypherConfigSchema, cypherSecretsSchema } from "@/lib/backends/cypher/config";
import { neighborhoodQuery } from "@/lib/backends/cypher/neighborhood";
import { cypherTypeName, toDriverParams, toJsonValue } from "@/lib/backends/cypher/values";

const { Node, Relationship, Path, PathSegment, Date: CypherDate, DateTime, Point, Duration } = neo4j.types;
const int = neo4j.int;

const keanu = new Node(int(1), ["Person"], { name: "Keanu Reeves", born: int(1964) }, "4:db:1");
const matrix = new Node(int(2), ["Movie"], { title: "The Matrix", released: int(1999) }, "4:db:2");
const actedIn = new Relationship(int(10), int(1), int(2), "ACTED_IN", { roles: ["Neo"] }, "5:db:10", "4:db:1", "4:db:2");

describe("toJsonValue: driver values become plain JSON", () => {
  it("encodes nodes, relationships and paths by element id, with their properties", () => {
    expect(toJsonValue(keanu)).toEqual({
      __kind: "node",
      id: "4:db:1",
      labels: ["Person"],
      properties: { name: "Keanu Reeves", born: 1964 },
    });
    expect(toJsonValue(actedIn)).toEqual({
      __kind: "relationship",
      id: "5:db:10",
      type: "ACTED_IN",
      start: "4:db:1",
      end: "4:db:2",
      properties: { roles: ["Neo"] },
    });
    // Traversed against the stored direction: Matrix <-ACTED_IN- Keanu.
    const path = new Path(matrix, keanu, [new PathSegment(matrix, actedIn, keanu)]);
    const json = toJsonValue(path) as { nodes: { id: string }[]; relationships: { start: string }[] };
    expect(json).toMatchObject({ __kind: "path" });
    expect(json.nodes.map((n) => n.id)).toEqual(["4:db:2", "4:db:1"]);
    expect(json.relationships[0]!.start).toBe("4:db:1");
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it("keeps 64-bit integers exact: numbers when safe, strings beyond", () => {
    expect(toJsonValue(int(42))).toBe(42);
    expect(toJsonValue(int("9007199254740993"))).toBe("9007199254740993");
    expect(toJsonValue(BigInt("-9007199254740993"))).toBe("-9007199254740993");
  });

  it("writes temporal and spatial values in their Cypher form, and JSON-unsafe numbers as text", () => {
    expect(toJsonValue(new CypherDate(2024, 2, 29))).toBe("2024-02-29");
    expect(toJsonValue(new DateTime(2024, 1, 2, 3, 4, 5, 0, 3600))).toBe("2024-01-02T03:04:05+01:00");
    expect(toJsonValue(new Duration(0, 3, 3600, 0))).toBe("P3DT1H");
    expect(toJsonValue(new Point(int(7203), 1.5, 2))).toMatch(/^Point\{srid=7203/);
    expect(toJsonValue(Number.NaN)).toBe("NaN");
    expect(toJsonValue(new Uint8Array([1, 2, 3]))).toBe("AQID");
  });

  it("converts lists and maps deeply", () => {
    expect(toJsonValue({ a: [int(1), { b: new CypherDate(2020, 1, 1) }], c: null })).toEqual({ a: [1, { b: "2020-01-01" }], c: null });
  });

  it("names Cypher types the way the schema procedures print them", () => {
    expect(
      [int(1), 1.5, "s", true, [1], new CypherDate(2020, 1, 1), new DateTime(2020, 1, 1, 0, 0, 0, 0, 0), {}].map(cypherTypeName),
    ).toEqual(["INTEGER", "FLOAT", "STRING", "BOOLEAN", "LIST", "DATE", "DATE_TIME", "MAP"]);
  });
});

describe("toDriverParams", () => {
  it("sends whole numbers as Cypher integers (LIMIT $n needs one) and leaves the rest alone", () => {
    const params = toDriverParams({ n: 10, ratio: 0.5, names: ["Tom"], nested: { ids: [1, 2] }, big: 2 ** 60 }) as Record<string, unknown>;
    expect(neo4j.isInt(params.n)).toBe(true);
    expect(params.ratio).toBe(0.5);
    expect(params.names).toEqual(["Tom"]);
    expect(((params.nested as { ids: unknown[] }).ids as unknown[]).every((x) => neo4j.isInt(x))).toBe(true);
    expect(params.big).toBe(2 ** 60);
  });
});

describe("captions", () => {
  it("picks the property a person would call the node by", () => {
    expect(chooseCaptionKey(["Movie"], ["released", "tagline", "title"])).toEqual({ key: "title", kind: "name" });
    expect(chooseCaptionKey(["Person"], ["born", "name"])).toEqual({ key: "name", kind: "name" });
    expect(chooseCaptionKey(["Product"], ["categoryID", "productID", "productName", "quantityPerUnit"])).toEqual({
      key: "productName",
      kind: "name",
    });
    expect(chooseCaptionKey(["Customer"], ["contactName", "companyName", "customerID"])).toEqual({ key: "companyName", kind: "name" });
    // An Order's shipName names the consignee; the order is its id.
    expect(chooseCaptionKey(["Order"], ["customerID", "orderID", "shipName"])).toEqual({ key: "orderID", kind: "id" });
    expect(chooseCaptionKey(["User"], ["display_name", "id"])).toEqual({ key: "display_name", kind: "name" });
    expect(chooseCaptionKey(["Thing"], ["weight"])).toBeNull();
  });

  it("falls back to the first text property, then to the element id", () => {
    expect(nodeCaption({ id: "4:x:9", labels: ["Order"], properties: { orderID: "10248", shipName: "Vins" } })).toBe("Order 10248");
    expect(nodeCaption({ id: "4:x:9", labels: ["Thing"], properties: { weight: 3, colour: "  dark   red " } })).toBe("dark red");
    expect(nodeCaption({ id: "4:x:9", labels: ["Thing"], properties: { weight: 3 } })).toBe("4:x:9");
    expect(nodeCaption({ id: "4:x:9", labels: ["Movie"], properties: { title: "x".repeat(200) } })).toHaveLength(80);
  });

  it("makes table cells of property values, cutting long text", () => {
    expect(scalarProperties({ b: [1, "two"], a: { k: 1 }, c: "x".repeat(600) })).toEqual({
      a: '{"k":1}',
      b: [1, "two"],
      c: `${"x".repeat(499)}…`,
    });
    expect(toScalar(null)).toBeNull();
  });
});

describe("cypherConfigSchema", () => {
  it("accepts Bolt and Neo4j addresses, with or without TLS", () => {
    for (const uri of ["bolt://localhost:7687", "neo4j://db.example.com", "neo4j+s://x.databases.neo4j.io", "bolt+ssc://10.0.0.2:7687"]) {
      expect(cypherConfigSchema.safeParse({ uri, user: "neo4j" }).success).toBe(true);
    }
  });

  it("refuses other schemes, credentials in the address, and odd database names, with a hint", () => {
    const http = cypherConfigSchema.safeParse({ uri: "http://localhost:7474", user: "neo4j" });
    expect(http.success).toBe(false);
    expect(http.error?.issues[0]?.message).toMatch(/Use a bolt:\/\/ or neo4j:\/\/ address/);
    const creds = cypherConfigSchema.safeParse({ uri: "bolt://neo4j:secret@localhost:7687", user: "neo4j" });
    expect(creds.error?.issues[0]?.message).toMatch(/password in the secrets/);
    expect(cypherConfigSchema.safeParse({ uri: "not a uri", user: "neo4j" }).success).toBe(false);
    expect(cypherConfigSchema.safeParse({ uri: "bolt://h", user: "neo4j", database: "movies; DROP" }).success).toBe(false);
    expect(cypherConfigSchema.safeParse({ uri: "bolt://h", user: "" }).success).toBe(false);
    expect(cypherSecretsSchema.parse({})).toEqual({});
  });
});

describe("neighborhoodQuery", () => {
  it("builds a parameterized 1- or 2-hop ego-graph query", () => {
    expect(neighborhoodQuery({ elementIds: ["4:db:1"], hops: 2, relationshipTypes: ["ACTED_IN"], limit: 50 })).toEqual({
      language: "cypher",
      text: "MATCH (s) WHERE elementId(s) IN $ids\nMATCH p = (s)-[*1..2]-()\nWHERE all(r IN relationships(p) WHERE type(r) IN $types)\nRETURN p LIMIT $limit",
      params: { ids: ["4:db:1"], types: ["ACTED_IN"], limit: 50 },
    });
    const byName = neighborhoodQuery({ names: ["Tom Hanks"], hops: 1 });
    expect(byName.text).toContain("any(k IN $nameKeys WHERE s[k] IN $names)");
    expect(byName.params).toEqual({ names: ["Tom Hanks"], nameKeys: ["name", "title"], limit: 200 });
    expect(() => neighborhoodQuery({ names: [], hops: 1 })).toThrow(RangeError);
    expect(() => neighborhoodQuery({ names: ["x"], hops: 3 as 1 })).toThrow(RangeError);
  });
});
