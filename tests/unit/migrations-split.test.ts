import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const DIR = "prisma/migrations";

/**
 * Prisma's PostgreSQL driver adapter runs a migration as statements split at every semicolon, comments
 * included: a semicolon inside a comment cuts the next statement in two, and the migration fails on
 * PostgreSQL only (PGlite runs the file whole). Every migration's comments stay free of them.
 */
describe("migrations run statement by statement on PostgreSQL", () => {
  it("keeps semicolons out of comments", () => {
    const offending: string[] = [];
    for (const folder of readdirSync(DIR, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      const file = path.join(DIR, folder.name, "migration.sql");
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          const comment = line.indexOf("--");
          if (comment >= 0 && line.slice(comment).includes(";")) offending.push(`${file}:${i + 1}`);
        });
    }
    expect(offending).toEqual([]);
  });
});
