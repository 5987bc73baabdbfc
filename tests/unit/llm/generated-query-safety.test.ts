import { describe, expect, it } from "vitest";
import { QueryRejectedError, QuerySyntaxError } from "@/lib/backends/errors";
import { checkGeneratedQuery, screenCypher } from "@/lib/pipeline/stages/formulate/llm-safety";

const refused = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof QueryRejectedError ? e.reason : `not refused: ${(e as Error).message}`;
  }
  return "accepted";
};

describe("generated Cypher screen", () => {
  it.each([
    ["MATCH (n) DETACH DELETE n", /writes \(DELETE, DETACH\)/],
    ["MATCH (n:Person) SET n.name = 'x' RETURN n", /writes \(SET\)/],
    ["CREATE (n:Person {name: 'Mallory'}) RETURN n", /writes \(CREATE\)/],
    ["MERGE (n:Person {name: 'M'}) RETURN n", /writes \(MERGE\)/],
    ["LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", /LOAD CSV/],
    ["CALL apoc.load.json('http://evil.example') YIELD value RETURN value", /APOC/],
    ["RETURN apoc.text.join(['a'], ',')", /APOC/],
    ["CALL dbms.listConfig() YIELD name RETURN name", /dbms/],
    ["CALL db.createLabel('X')", /procedure db.createLabel is not allowed/],
    ["MATCH (n) RETURN n; MATCH (m) DETACH DELETE m", /single Cypher statement/],
    ["CALL { MATCH (n) RETURN n } IN TRANSACTIONS RETURN 1", /IN TRANSACTIONS/],
    ["SHOW DATABASES", /administration/],
  ])("refuses %s", (query, reason) => {
    expect(refused(() => screenCypher(query))).toMatch(reason);
  });

  it.each([
    "MATCH (p:Person)-[:ACTED_IN]->(m:Movie) WHERE toLower(p.name) = toLower('Tom Hanks') RETURN p.name, m.title LIMIT 50",
    "MATCH (m:Movie) WHERE m.title = 'Delete Me; Create You' RETURN m.title",
    "MATCH (s:Set {set: 1}) RETURN s.set, s.`create` // SET in a comment",
    "MATCH p = (a:Person)-[*1..2]-(b) WHERE a.name = $name RETURN p",
    "CALL db.labels() YIELD label RETURN label",
    "MATCH (n) RETURN count(n);",
  ])("accepts %s", (query) => {
    expect(refused(() => screenCypher(query))).toBe("accepted");
  });

  it("asks for a RETURN", () => {
    expect(() => screenCypher("MATCH (n:Person)")).toThrow(QuerySyntaxError);
  });
});

describe("generated SQL and SPARQL go through the backends' own checks", () => {
  it("accepts one SELECT and names its table", async () => {
    await expect(checkGeneratedQuery("sql", "SELECT COUNT(*) AS n FROM orders WHERE status = 'returned';")).resolves.toEqual({
      text: "SELECT COUNT(*) AS n FROM orders WHERE status = 'returned'",
      table: "orders",
    });
  });

  it.each([
    "DELETE FROM orders",
    "SELECT 1; DROP TABLE orders",
    "ATTACH DATABASE 'x' AS y",
    "SELECT load_extension('evil')",
    "PRAGMA writable_schema = 1",
  ])("refuses SQL %s", async (sql) => {
    await expect(checkGeneratedQuery("sql", sql)).rejects.toThrow(QueryRejectedError);
  });

  it("reports unreadable SQL as a syntax error (repairable), not a refusal", async () => {
    await expect(checkGeneratedQuery("sql", "SELECT COUNT(* FROM orders")).rejects.toThrow(QuerySyntaxError);
  });

  it("refuses SPARQL updates and SERVICE calls, accepts queries", async () => {
    await expect(checkGeneratedQuery("sparql", 'INSERT DATA { <urn:a> <urn:b> "c" }')).rejects.toThrow(QueryRejectedError);
    await expect(checkGeneratedQuery("sparql", "DELETE WHERE { ?s ?p ?o }")).rejects.toThrow(QueryRejectedError);
    await expect(checkGeneratedQuery("sparql", "SELECT * WHERE { SERVICE <http://evil.example/sparql> { ?s ?p ?o } }")).rejects.toThrow(
      QueryRejectedError,
    );
    expect((await checkGeneratedQuery("sparql", "SELECT ?s WHERE { ?s ?p ?o } LIMIT 5")).text).toBe("SELECT ?s WHERE { ?s ?p ?o } LIMIT 5");
  });
});
