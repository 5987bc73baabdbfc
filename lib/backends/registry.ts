import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { decryptSecrets } from "../crypto/secrets";
import { createCypherBackend, cypherConfigSchema, cypherSecretsSchema } from "./cypher";
import { createDocumentsBackend, documentsConfigSchema, documentsSecretsSchema } from "./documents";
import { BackendConfigError } from "./errors";
import { createSparqlBackend, sparqlConfigSchema, sparqlSecretsSchema } from "./sparql";
import { createSqlBackend, sqlConfigSchema, sqlSecretsSchema } from "./sql";
import type { BackendContext, KbKind, KnowledgeBackend } from "./types";

/** One entry per KB kind: how to validate its config and secrets, and how to open it. */
interface BackendKindSpec<C extends z.ZodType, S extends z.ZodType> {
  configSchema: C;
  secretsSchema: S;
  create(config: z.infer<C>, secrets: z.infer<S>, ctx: BackendContext): KnowledgeBackend;
}

function spec<C extends z.ZodType, S extends z.ZodType>(s: BackendKindSpec<C, S>) {
  return s as unknown as BackendKindSpec<z.ZodType, z.ZodType>;
}

export const BACKEND_KINDS: Record<KbKind, BackendKindSpec<z.ZodType, z.ZodType>> = {
  DOCUMENTS: spec({ configSchema: documentsConfigSchema, secretsSchema: documentsSecretsSchema, create: createDocumentsBackend }),
  SQL: spec({ configSchema: sqlConfigSchema, secretsSchema: sqlSecretsSchema, create: createSqlBackend }),
  SPARQL: spec({ configSchema: sparqlConfigSchema, secretsSchema: sparqlSecretsSchema, create: createSparqlBackend }),
  CYPHER: spec({ configSchema: cypherConfigSchema, secretsSchema: cypherSecretsSchema, create: createCypherBackend }),
};

export interface KbRecord {
  id: string;
  name: string;
  kind: KbKind;
  config: unknown;
  secretsCiphertext: string | null;
  updatedAt: Date;
  /** Set when an admin accepted that the connection may do more than read. */
  riskAcceptedAt: Date | null;
}

export function kbStorageDir(dataDir: string, kbId: string): string {
  if (!/^[a-z0-9_-]+$/i.test(kbId)) throw new BackendConfigError(`Invalid knowledge base id "${kbId}".`);
  return path.resolve(dataDir, "kbs", kbId);
}

export function removeKbStorage(dataDir: string, kbId: string): void {
  rmSync(kbStorageDir(dataDir, kbId), { recursive: true, force: true });
}

export function parseKbConfig(kind: KbKind, config: unknown) {
  const parsed = BACKEND_KINDS[kind].configSchema.safeParse(config);
  if (!parsed.success) {
    throw new BackendConfigError(
      `The ${kind.toLowerCase()} connection settings are invalid: ${parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ")}.`,
    );
  }
  return parsed.data;
}

/** Opens a backend from explicit settings (used by "test connection" before anything is saved). */
export function openBackendFrom(kind: KbKind, config: unknown, secrets: Record<string, string>, ctx: BackendContext): KnowledgeBackend {
  const spec = BACKEND_KINDS[kind];
  const parsedSecrets = spec.secretsSchema.safeParse(secrets);
  if (!parsedSecrets.success) throw new BackendConfigError(`The ${kind.toLowerCase()} secrets are invalid.`);
  mkdirSync(ctx.storageDir, { recursive: true });
  return spec.create(parseKbConfig(kind, config), parsedSecrets.data, ctx);
}

/**
 * Open backends are cached per KB and reopened when the KB row changes (updatedAt), so connection
 * pools, SQLite query processes and RDF workers are shared across requests instead of reopened per
 * query. The cache is least-recently-used and bounded: a catalog of hundreds of KBs (the benchmark
 * catalog has 175) must not keep hundreds of processes and stores in memory.
 */
export const MAX_OPEN_BACKENDS = 24;
const globalForBackends = globalThis as unknown as { __mosaicBackends?: Map<string, { stamp: number; backend: KnowledgeBackend }> };
const cache = (globalForBackends.__mosaicBackends ??= new Map());

export function openBackend(kb: KbRecord, deps: { dataDir: string; encryptionKey: Buffer }): KnowledgeBackend {
  const stamp = kb.updatedAt.getTime();
  const cached = cache.get(kb.id);
  if (cached && cached.stamp === stamp) {
    cache.delete(kb.id);
    cache.set(kb.id, cached); // most recently used goes last
    return cached.backend;
  }
  if (cached) {
    cache.delete(kb.id);
    void cached.backend.close().catch(() => undefined);
  }
  while (cache.size >= MAX_OPEN_BACKENDS) {
    const [oldestId, oldest] = cache.entries().next().value!;
    cache.delete(oldestId);
    void oldest.backend.close().catch(() => undefined);
  }
  const secrets = kb.secretsCiphertext ? decryptSecrets(kb.secretsCiphertext, deps.encryptionKey) : {};
  const backend = openBackendFrom(kb.kind, kb.config, secrets, {
    kbId: kb.id,
    kbName: kb.name,
    storageDir: kbStorageDir(deps.dataDir, kb.id),
    privilegeRiskAccepted: !!kb.riskAcceptedAt,
  });
  cache.set(kb.id, { stamp, backend });
  return backend;
}

export async function closeBackend(kbId: string): Promise<void> {
  const cached = cache.get(kbId);
  cache.delete(kbId);
  await cached?.backend.close().catch(() => undefined);
}

export async function closeAllBackends(): Promise<void> {
  const all = [...cache.keys()];
  await Promise.all(all.map(closeBackend));
}
