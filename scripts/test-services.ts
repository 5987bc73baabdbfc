// npm run test:services: the integration tests against real servers that this script starts on loopback,
// each with a throw-away data directory, and stops afterwards:
//   PostgreSQL (Debian's postgresql), Neo4j Community 5 (neo4j-harness from Maven Central, Java 17),
//   Virtuoso (Debian's virtuoso-opensource) as the remote SPARQL endpoint,
//   OpenSearch 2.19 (one embedded node from Maven Central artifacts, Java 17) for document collections.
// Extra arguments go to vitest (e.g. a test file to run only that).
import { spawnSync } from "node:child_process";
import { type Neo4jServer, neo4jTestEnv, startNeo4j } from "../tests/support/services/neo4j";
import { type OpenSearchServer, openSearchTestEnv, startOpenSearch } from "../tests/support/services/opensearch";
import { type PostgresServer, startPostgres } from "../tests/support/services/postgres";
import { type VirtuosoServer, startVirtuoso } from "../tests/support/services/virtuoso";

const extraArgs = process.argv.slice(2);
let postgres: PostgresServer | undefined;
let neo4j: Neo4jServer | undefined;
let virtuoso: VirtuosoServer | undefined;
let opensearch: OpenSearchServer | undefined;
let status = 1;
try {
  const started = Date.now();
  // Started one after the other: on two cores, parallel JVM and database starts only slow each other down.
  postgres = await startPostgres();
  console.log(`PostgreSQL ready at ${postgres.url}`);
  virtuoso = await startVirtuoso();
  console.log(`Virtuoso SPARQL endpoint ready at ${virtuoso.endpoint}`);
  neo4j = await startNeo4j();
  console.log(`Neo4j ready at ${neo4j.uri}`);
  opensearch = await startOpenSearch();
  console.log(`OpenSearch ready at ${opensearch.url} (all services up in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  const r = spawnSync("npx", ["vitest", "run", "--project", "integration", ...extraArgs], {
    stdio: "inherit",
    env: {
      ...process.env,
      TEST_POSTGRES_URL: postgres.url,
      TEST_SPARQL_ENDPOINT: virtuoso.endpoint,
      ...neo4jTestEnv(neo4j),
      ...openSearchTestEnv(opensearch),
    },
  });
  status = r.status ?? 1;
} catch (e) {
  console.error(`Could not start the test services: ${(e as Error).message}`);
} finally {
  await opensearch?.stop().catch(() => undefined);
  await neo4j?.stop().catch(() => undefined);
  virtuoso?.stop();
  postgres?.stop();
}
process.exit(status);
