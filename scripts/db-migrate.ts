// npm run db:migrate: applies pending migrations from prisma/migrations (the app also does this at start).
import { loadEnv } from "../lib/env";
import { openDatabase } from "../lib/db/connect";
import { applyPendingMigrations } from "../lib/db/migrations";
import { runCli } from "./cli";

await runCli(async () => {
  const env = loadEnv();
  const handle = await openDatabase(env);
  try {
    const applied = await applyPendingMigrations(handle.adapterFactory);
    console.log(
      applied.length
        ? `Applied ${applied.length} migration(s) to ${handle.location}:\n${applied.map((n) => `  ${n}`).join("\n")}`
        : `${handle.location} is up to date.`,
    );
  } finally {
    await handle.close();
  }
});
