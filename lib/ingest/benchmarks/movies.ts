import { readFileSync } from "node:fs";
import path from "node:path";
import neo4j, { type Driver } from "neo4j-driver";

/**
 * Loads `<datasetsDir>/neo4j-movies/movies.cypher` as written: its index and constraint statements,
 * then the one big CREATE. Neo4j runs one statement per query and schema changes cannot share a
 * transaction with data, so each statement (ended by ";" at the end of a line) runs on its own.
 * This writes to the database: a setup step for tests and benchmarks, never a query path.
 */
export async function loadMoviesCypher(
  driver: Driver,
  datasetsDir: string,
  options: { database?: string } = {},
): Promise<{ nodes: number; relationships: number }> {
  const text = readFileSync(path.join(datasetsDir, "neo4j-movies", "movies.cypher"), "utf8");
  const statements = text
    .split(/;[ \t]*\r?\n|;[ \t]*$/)
    .map((s) => s.trim())
    .filter(Boolean);
  const session = driver.session({ database: options.database });
  try {
    for (const statement of statements) await session.run(statement);
    // Counted by the graph's own labels: the database may hold other graphs too.
    const nodes = await session.run("MATCH (n) WHERE n:Person OR n:Movie RETURN count(n) AS c");
    const rels = await session.run("MATCH (:Person)-[r]->() RETURN count(r) AS c");
    return { nodes: neo4j.integer.toNumber(nodes.records[0]!.get("c")), relationships: neo4j.integer.toNumber(rels.records[0]!.get("c")) };
  } finally {
    await session.close();
  }
}
