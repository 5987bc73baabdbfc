// npm run test:services: the integration tests against real servers started here on loopback
// (PostgreSQL from Debian's package, each with a throw-away data directory), then stopped.
import { spawnSync } from "node:child_process";
import { startPostgres } from "../tests/support/services/postgres";

const extraArgs = process.argv.slice(2);
const postgres = await startPostgres();
console.log(`PostgreSQL ready at ${postgres.url}`);
let status = 1;
try {
  const r = spawnSync("npx", ["vitest", "run", "--project", "integration", ...extraArgs], {
    stdio: "inherit",
    env: { ...process.env, TEST_POSTGRES_URL: postgres.url },
  });
  status = r.status ?? 1;
} finally {
  postgres.stop();
}
process.exit(status);
