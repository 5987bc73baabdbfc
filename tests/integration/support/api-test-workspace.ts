import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@/lib/db/generated/client";
import type { TestDatabase } from "./test-database";

/**
 * Points the app's modules at a test database with the demo accounts seeded, as the API tests need it:
 * a shared PostgreSQL database takes the instance secrets from the environment (lib/local-secrets.ts),
 * so they are set there. With `catalog`, the demo knowledge bases are registered too.
 */
export async function openApiTestWorkspace(testDb: TestDatabase, { catalog = true } = {}): Promise<PrismaClient> {
  process.env.DATA_DIR = testDb.env.DATA_DIR;
  if (testDb.env.DATABASE_URL) {
    process.env.DATABASE_URL = testDb.env.DATABASE_URL;
    process.env.NEXTAUTH_SECRET ??= randomBytes(32).toString("base64url");
    process.env.MOSAIC_ENCRYPTION_KEY ??= randomBytes(32).toString("hex");
  }
  process.env.SEED_DEMO = "true";
  (await import("@/lib/env")).resetEnvCache();
  const prisma = await (await import("@/lib/db/client")).db();
  if (catalog) {
    const { catalogDeps } = await import("@/lib/deps");
    await (await import("@/lib/demo/seed-catalog")).seedDemoCatalogOnce(prisma, catalogDeps());
  }
  return prisma;
}
