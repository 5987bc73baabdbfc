import { readFile, readdir, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import type { MigrationList, SchemaEngine } from "@prisma/schema-engine-wasm";

/**
 * Loads Prisma's WebAssembly schema engine. The package is built for bundlers (it imports the .wasm
 * file as a module), so under plain Node we instantiate the module ourselves and hand it to the
 * wasm-bindgen glue, as Prisma's own CLI does.
 */
type Glue = typeof import("@prisma/schema-engine-wasm/schema_engine_bg") & {
  __wbg_set_wasm(exports: WebAssembly.Exports): void;
};

let gluePromise: Promise<Glue> | undefined;

async function loadGlue(): Promise<Glue> {
  // Resolve from the project root so this also works inside the Next.js server bundle.
  const require = createRequire(path.join(process.cwd(), "package.json"));
  const pkgDir = path.dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg"));
  const glue = (await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ path.join(pkgDir, "schema_engine_bg.js"))) as Glue;
  const bytes = await readFile(/* turbopackIgnore: true */ path.join(pkgDir, "schema_engine_bg.wasm"));
  const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": glue as never });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  return glue;
}

export interface OpenSchemaEngine {
  engine: SchemaEngine;
  /** Frees the engine and ends every connection it opened (the pg pool would otherwise keep the migration advisory lock). */
  close(): Promise<void>;
}

export async function openSchemaEngine(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  schemaFiles?: { path: string; content: string }[],
): Promise<OpenSchemaEngine> {
  gluePromise ??= loadGlue();
  const glue = await gluePromise;
  const opened: SqlDriverAdapter[] = [];
  const tracked: SqlMigrationAwareDriverAdapterFactory = {
    provider: adapterFactory.provider,
    adapterName: adapterFactory.adapterName,
    connect: async () => {
      const a = await adapterFactory.connect();
      opened.push(a);
      return a;
    },
    connectToShadowDb: async () => {
      const a = await adapterFactory.connectToShadowDb();
      opened.push(a);
      return a;
    },
  };
  const bound = bindMigrationAwareSqlAdapterFactory(tracked);
  const datamodels = schemaFiles?.length ? schemaFiles.map((f) => [f.path, f.content] as [string, string]) : undefined;
  const log = (line: string) => {
    if (process.env.MOSAIC_DEBUG_SCHEMA_ENGINE) process.stderr.write(`[schema-engine] ${line}\n`);
  };
  const engine = await glue.SchemaEngine.new({ datamodels }, log, bound);
  return {
    engine,
    async close() {
      engine.free();
      await Promise.allSettled(opened.map((a) => a.dispose()));
    },
  };
}

export const MIGRATIONS_DIR = path.join(process.cwd(), "prisma", "migrations");
export const SCHEMA_FILE = path.join(process.cwd(), "prisma", "schema.prisma");
const LOCKFILE = "migration_lock.toml";

/** Reads prisma/migrations in the shape the engine expects (what the Prisma CLI does before each command). */
export async function readMigrationList(baseDir = MIGRATIONS_DIR): Promise<MigrationList> {
  let entries: string[] = [];
  try {
    entries = (await readdir(/* turbopackIgnore: true */ baseDir)).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  const migrationDirectories: MigrationList["migrationDirectories"] = [];
  for (const name of entries) {
    const dir = path.join(/* turbopackIgnore: true */ baseDir, name);
    if (!(await stat(/* turbopackIgnore: true */ dir)).isDirectory()) continue;
    const file = path.join(/* turbopackIgnore: true */ dir, "migration.sql");
    let content: { tag: "ok"; value: string } | { tag: "error"; value: string };
    try {
      content = { tag: "ok", value: await readFile(/* turbopackIgnore: true */ file, "utf8") };
    } catch (e) {
      content = { tag: "error", value: (e as Error).message };
    }
    migrationDirectories.push({ path: name, migrationFile: { path: "migration.sql", content: content as never } });
  }
  let lockContent: string | null = null;
  try {
    lockContent = await readFile(/* turbopackIgnore: true */ path.join(baseDir, LOCKFILE), "utf8");
  } catch {
    lockContent = null;
  }
  return {
    baseDir,
    lockfile: { path: LOCKFILE, content: lockContent },
    shadowDbInitScript: "",
    migrationDirectories,
  };
}
