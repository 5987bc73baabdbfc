// npm run db:migration -- <name>: writes prisma/migrations/<timestamp>_<name>/migration.sql from schema changes.
import { createMigration } from "../lib/db/migrations";

const name = process.argv[2];
if (!name) {
  console.error("Usage: npm run db:migration -- <name>   (for example: npm run db:migration -- add_run_tags)");
  process.exit(2);
}
try {
  const created = await createMigration(name);
  if (!created) {
    console.log("The schema matches the existing migrations: nothing to create.");
  } else {
    console.log(`Created ${created.file}\nApply it with: npm run db:migrate (the app also applies it at start).`);
  }
} catch (e) {
  console.error(`Could not create the migration: ${(e as Error).message}`);
  process.exit(1);
}
