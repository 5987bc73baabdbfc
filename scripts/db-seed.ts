// npm run db:seed: migrates, then seeds the demo workspace if the users table is empty.
import { loadEnv } from "../lib/env";
import { openAndBootstrap } from "../lib/db/bootstrap";
import { closeAllBackends } from "../lib/backends/registry";
import { catalogDeps } from "../lib/deps";
import { seedDemoCatalogOnce } from "../lib/demo/seed-catalog";
import { runCli } from "./cli";

await runCli(async () => {
  const { handle, report } = await openAndBootstrap({ ...loadEnv(), SEED_DEMO: true });
  try {
    console.log(report.seededUsers ? `Seeded ${report.seededUsers} demo users.` : "The workspace already has users: no demo users added.");
    const demo = await seedDemoCatalogOnce(handle.prisma, catalogDeps());
    console.log(
      demo.seeded ? `Seeded the demo catalog (${demo.kbs} knowledge bases).` : "The demo catalog was seeded before: nothing added.",
    );
  } finally {
    await closeAllBackends();
    await handle.close();
  }
});
