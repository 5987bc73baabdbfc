// Prisma CLI configuration. Only `prisma generate` is run through the CLI; migrations go through
// the WebAssembly schema engine (lib/db/migrations.ts) because the CLI's native engine cannot be downloaded offline.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
