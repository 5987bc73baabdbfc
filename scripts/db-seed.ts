// npm run db:seed: migrates, then seeds the demo workspace if the users table is empty.
import { loadEnv } from "../lib/env";
import { openAndBootstrap } from "../lib/db/bootstrap";
import { runCli } from "./cli";

await runCli(async () => {
  const { handle, report } = await openAndBootstrap({ ...loadEnv(), SEED_DEMO: true });
  await handle.close();
  console.log(report.seededUsers ? `Seeded ${report.seededUsers} demo users.` : "The workspace already has users: nothing seeded.");
});
