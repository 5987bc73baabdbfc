import neo4j, { type Driver } from "neo4j-driver";
import { BackendConfigError, QueryRejectedError, isBackendError } from "../errors";
import {
  DEFAULT_EXECUTE_OPTIONS,
  type BackendContext,
  type Descriptor,
  type EntityIndexEntry,
  type EvidencePiece,
  type ExecuteOptions,
  type HealthResult,
  type KbStructure,
  type KnowledgeBackend,
  type NativeQuery,
  type Preview,
  type RawResult,
  type SourceUnit,
} from "../types";
import type { CypherConfig, CypherSecrets } from "./config";
import { describeGraph, labelSourceUnits } from "./describe";
import { isUnavailableCode, mapNeo4jError, unavailableError, type ErrorContext } from "./driver-errors";
import { buildEntityIndex } from "./entity-index";
import { previewLabel } from "./preview";
import { readCypher, readInternal, recordToJson, type ReadTarget } from "./read";
import { queryLimits } from "../limits";
import { resultBudget } from "../value-budget";
import { readGraphSchema, type GraphSchema, type PropertyStats } from "./schema";
import { toDriverParams, toJsonValue } from "./values";
import { verbalizeCypher } from "./verbalize";
import { count } from "../../format/count";

/** describe(), sourceUnits() and entityIndex() run back to back at registration: read the schema once. */
const SCHEMA_TTL_MS = 60_000;
const DEFAULT_PREVIEW_NODES = 10;
const MAX_PREVIEW_NODES = 50;
const DEFAULT_ENTITY_LIMIT = 5_000;
const MAX_ENTITY_LIMIT = 50_000;

class CypherBackend implements KnowledgeBackend {
  readonly kind = "CYPHER" as const;
  readonly language = "cypher" as const;
  private readonly driver: Driver;
  private readonly target: ReadTarget;
  private readonly errorContext: ErrorContext;
  private schemaCache: { at: number; schema: Promise<GraphSchema> } | null = null;

  constructor(
    private readonly config: CypherConfig,
    secrets: CypherSecrets,
    private readonly ctx: BackendContext,
  ) {
    this.errorContext = { uri: config.uri, user: config.user, database: config.database };
    // Without a password the driver signs in with no credentials (servers with authentication off).
    const auth = secrets.password !== undefined ? neo4j.auth.basic(config.user, secrets.password) : undefined;
    try {
      // Creating a driver opens no connection; the first query (or check) does.
      this.driver = neo4j.driver(config.uri, auth, {
        userAgent: "mosaic",
        connectionTimeout: 10_000,
        connectionAcquisitionTimeout: 20_000,
        maxConnectionPoolSize: 20,
      });
    } catch (error) {
      throw new BackendConfigError(`Cannot use the Neo4j address ${config.uri}: ${(error as Error).message}`);
    }
    this.target = { driver: this.driver, database: config.database, errorContext: this.errorContext };
  }

  async check(): Promise<HealthResult> {
    const started = performance.now();
    const latencyMs = () => Math.round(performance.now() - started);
    try {
      await this.driver.verifyConnectivity({ database: this.config.database }).catch((error: unknown) => {
        throw isUnavailableCode((error as { code?: string }).code) || !(error as { code?: string }).code
          ? unavailableError(error, this.errorContext)
          : mapNeo4jError(error, this.errorContext);
      });
      const nodes = await readInternal(this.target, "MATCH (n) RETURN count(n) AS c", {}, { timeoutMs: 10_000, maxRows: 1 });
      const rels = await readInternal(this.target, "MATCH ()-[r]->() RETURN count(r) AS c", {}, { timeoutMs: 10_000, maxRows: 1 });
      const agent = nodes.summary?.server.agent ?? "Neo4j";
      const database = nodes.summary?.database.name ?? this.config.database ?? "default";
      const n = Number(toJsonValue(nodes.records[0]?.get("c")));
      const r = Number(toJsonValue(rels.records[0]?.get("c")));
      return {
        ok: true,
        message: `Connected (${agent.replace("/", " ")}, database ${database}, ${count(n, "node")}, ${count(r, "relationship")})`,
        latencyMs: latencyMs(),
      };
    } catch (error) {
      const message = isBackendError(error) ? error.message : unavailableError(error, this.errorContext).message;
      return { ok: false, message, latencyMs: latencyMs() };
    }
  }

  private schema(): Promise<GraphSchema> {
    const now = Date.now();
    if (!this.schemaCache || now - this.schemaCache.at > SCHEMA_TTL_MS) {
      const schema = readGraphSchema(this.target);
      // A failed read is not cached: the next call tries again.
      schema.catch(() => {
        if (this.schemaCache?.schema === schema) this.schemaCache = null;
      });
      this.schemaCache = { at: now, schema };
    }
    return this.schemaCache.schema;
  }

  async describe(): Promise<Descriptor> {
    return describeGraph(await this.schema(), this.ctx.kbName);
  }

  async sourceUnits(): Promise<SourceUnit[]> {
    return labelSourceUnits(await this.schema());
  }

  async execute(query: NativeQuery, options: Partial<ExecuteOptions> = {}): Promise<RawResult> {
    if (query.language !== "cypher") {
      throw new QueryRejectedError(`this knowledge base is a Neo4j graph and answers Cypher, not ${query.language}`, query.text);
    }
    const opts: ExecuteOptions = { ...DEFAULT_EXECUTE_OPTIONS, ...options };
    const result = await readCypher(
      this.target,
      {
        query: query.text,
        params: toDriverParams(query.params ?? {}) as Record<string, unknown>,
        timeoutMs: opts.timeoutMs,
        maxRows: opts.maxRows,
        signal: opts.signal,
        checkSafety: true,
        budget: resultBudget(queryLimits()),
      },
      recordToJson,
    );
    return { query, columns: result.columns, records: result.records, truncated: result.truncated, elapsedMs: result.elapsedMs };
  }

  verbalize(result: RawResult, options: { sourceObject?: string | null } = {}): EvidencePiece[] {
    return verbalizeCypher(result, { kbId: this.ctx.kbId, kbName: this.ctx.kbName }, options);
  }

  async preview(sourceKey: string, options: { limit?: number } = {}): Promise<Preview> {
    const limit = Math.max(1, Math.min(options.limit ?? DEFAULT_PREVIEW_NODES, MAX_PREVIEW_NODES));
    return previewLabel(this.target, sourceKey, limit);
  }

  async entityIndex(options: { limit?: number } = {}): Promise<EntityIndexEntry[]> {
    const limit = Math.max(1, Math.min(options.limit ?? DEFAULT_ENTITY_LIMIT, MAX_ENTITY_LIMIT));
    return buildEntityIndex(this.target, await this.schema(), limit);
  }

  /** Labels, relationship types and patterns as data for query formulation, from the same cached schema describe() renders. */
  async structure(): Promise<KbStructure> {
    const schema = await this.schema();
    const captionKeys: Record<string, string> = {};
    for (const l of schema.labels) if (l.caption) captionKeys[l.label] = l.caption.key;
    return {
      kind: "graph",
      labels: schema.labels.map((l) => ({
        label: l.label,
        count: l.count,
        properties: l.properties.map((p) => ({ name: p.key, types: [p.type], examples: propertyExamples(p) })),
      })),
      relationships: schema.relationshipTypes.map((t) => ({
        type: t.type,
        count: t.count,
        properties: t.properties.map((p) => ({ name: p.key, types: [p.type] })),
      })),
      patterns: schema.patterns.map((p) => ({ from: p.from, type: p.type, to: p.to, count: p.count })),
      captionKeys,
    };
  }

  async close(): Promise<void> {
    await this.driver.close();
  }
}

const STRUCTURE_EXAMPLES = 3;

/** A few sampled values of a property, typed back as numbers and booleans where the property holds those. */
function propertyExamples(p: PropertyStats): (string | number | boolean)[] {
  return p.distinct.slice(0, STRUCTURE_EXAMPLES).map((v) => {
    if (p.type === "INTEGER" || p.type === "FLOAT") return Number.isFinite(Number(v)) ? Number(v) : v;
    if (p.type === "BOOLEAN") return v === "true";
    return v;
  });
}

export function createCypherBackend(config: CypherConfig, secrets: CypherSecrets, ctx: BackendContext): KnowledgeBackend {
  return new CypherBackend(config, secrets, ctx);
}
