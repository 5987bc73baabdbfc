import { isBackendError, QueryExecutionError, QueryRejectedError } from "../errors";
import {
  type BackendContext,
  DEFAULT_EXECUTE_OPTIONS,
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
  type Scalar,
  type SourceUnit,
} from "../types";
import { renderDescriptor, renderSourceUnits } from "./describe";
import { describeRisks } from "./postgres/privileges";
import { DIALECT_LABEL } from "./dialect";
import type { SqlEngine } from "./engine";
import { buildEntityIndex, DEFAULT_ENTITY_LIMIT } from "./entity-index";
import { checkSqlSafety } from "./safety";
import { findTable, type SchemaSummary, type TableInfo, type TableStats } from "./schema";
import { verbalizeRows } from "./verbalize";
import { toJsonSafe, toScalar } from "./values";
import { count as countOf } from "../../format/count";

/** Example values come from this many leading rows of each table: bounded work per table, any size. */
const EXAMPLE_SOURCE_ROWS = 200;
const EXAMPLES_PER_COLUMN = 3;
const STEP_TIMEOUT_MS = 10_000;
const DEFAULT_PREVIEW_ROWS = 20;
const MAX_PREVIEW_ROWS = 500;

/** Result columns must be distinct record keys: a second `name` becomes `name (2)`. */
function distinctColumnNames(columns: string[]): string[] {
  const seen = new Map<string, number>();
  return columns.map((c) => {
    const n = (seen.get(c) ?? 0) + 1;
    seen.set(c, n);
    return n === 1 ? c : `${c} (${n})`;
  });
}

function examplesOf(columns: string[], rows: unknown[][]): Record<string, Scalar[]> {
  const examples: Record<string, Scalar[]> = {};
  columns.forEach((column, i) => {
    const seen = new Set<string>();
    const values: Scalar[] = [];
    for (const row of rows) {
      const v = toScalar(toJsonSafe(row[i]));
      if (v === null || v === "" || (typeof v === "string" && v.startsWith("<binary "))) continue;
      const k = String(v);
      if (seen.has(k)) continue;
      seen.add(k);
      values.push(v);
      if (values.length === EXAMPLES_PER_COLUMN) break;
    }
    examples[column] = values;
  });
  return examples;
}

/**
 * One KnowledgeBackend for every SQL engine: the safety check, descriptor, source units, evidence and
 * entity index are the same; connecting, reading the catalog and running queries are the engine's.
 */
export class SqlBackend implements KnowledgeBackend {
  readonly kind = "SQL" as const;
  readonly language = "sql" as const;
  private tablesCache: { stamp: string; promise: Promise<TableInfo[]> } | null = null;
  private summaryCache: { stamp: string; promise: Promise<SchemaSummary> } | null = null;
  /** The catalog as last loaded, for verbalize() (which does no I/O). */
  private loadedTables: TableInfo[] | null = null;

  constructor(
    private readonly engine: SqlEngine,
    private readonly ctx: BackendContext,
  ) {}

  async check(): Promise<HealthResult> {
    const started = performance.now();
    try {
      const version = await this.engine.version();
      const tables = await this.engine.loadTables();
      const latencyMs = Math.round(performance.now() - started);
      const count = countOf(tables.length, "table");
      const connected = `Connected (${version}, ${count}${tables.length === 0 ? ": the database holds no tables" : ""}).`;
      const privileges = this.engine.privileges ? await this.engine.privileges() : null;
      // Said without refusing: what every role may do by default, and the query checks refuse anyway.
      const notes = privileges?.notes.length ? ` ${privileges.notes.join(" ")}` : "";
      if (!privileges || privileges.risks.length === 0)
        return { ok: true, message: `${connected}${notes}`, latencyMs, ...(privileges ? { privilegeRisks: [] } : {}) };
      const risks = privileges.risks.map((r) => r.text);
      const said = describeRisks(privileges.role, privileges.risks);
      if (this.engine.privilegeRiskAccepted)
        return { ok: true, message: `${connected} ${said} An admin accepted this risk.${notes}`, latencyMs, privilegeRisks: risks };
      return {
        ok: false,
        refused: true,
        privilegeRisks: risks,
        message: `Refused: ${said} Connect with a role that may only read (GRANT SELECT on the knowledge base's tables), or, as an admin, accept the risk for this knowledge base.${notes}`,
        latencyMs,
      };
    } catch (e) {
      const message = isBackendError(e) || e instanceof Error ? e.message : String(e);
      return { ok: false, message, latencyMs: Math.round(performance.now() - started) };
    }
  }

  async describe(): Promise<Descriptor> {
    return renderDescriptor(await this.summary(), {
      kbName: this.ctx.kbName,
      dialect: this.engine.dialect,
      location: this.engine.location,
    });
  }

  async sourceUnits(): Promise<SourceUnit[]> {
    return renderSourceUnits(await this.summary(), this.engine.dialect);
  }

  async execute(query: NativeQuery, options: Partial<ExecuteOptions> = {}): Promise<RawResult> {
    const opts: ExecuteOptions = { ...DEFAULT_EXECUTE_OPTIONS, ...options };
    if (query.language !== "sql")
      throw new QueryRejectedError(`this knowledge base answers SQL queries, not ${query.language}`, query.text);
    const checked = await checkSqlSafety(query.text, this.engine.dialect);
    // The catalog is loaded before any result exists, so verbalize() can locate rows by primary key.
    await this.tables();
    const started = performance.now();
    const res = await this.engine.runQuery(checked.normalized, opts);
    const columns = distinctColumnNames(res.columns);
    const records = res.rows.map((row) => Object.fromEntries(columns.map((c, i) => [c, toJsonSafe(row[i])])));
    return { query, columns, records, truncated: res.truncated, elapsedMs: Math.round(performance.now() - started) };
  }

  verbalize(result: RawResult, options: { sourceObject?: string | null } = {}): EvidencePiece[] {
    return verbalizeRows(result, this.ctx, this.engine.dialect, this.loadedTables, options.sourceObject);
  }

  async preview(sourceKey: string, options: { limit?: number } = {}): Promise<Preview> {
    const tables = await this.tables();
    const table = findTable(tables, sourceKey);
    if (!table) {
      throw new QueryExecutionError(
        `There is no table "${sourceKey}" in ${this.ctx.kbName}. Refresh the source objects to see the current tables.`,
        sourceKey,
      );
    }
    const limit = Math.max(1, Math.min(MAX_PREVIEW_ROWS, Math.floor(options.limit ?? DEFAULT_PREVIEW_ROWS)));
    const res = await this.engine.readInternal(`SELECT * FROM ${this.engine.tableRef(table)} LIMIT ${limit + 1}`, {
      timeoutMs: STEP_TIMEOUT_MS,
      maxRows: limit + 1,
      table,
    });
    const count = await this.engine.countRows(table);
    const rows = res.rows.slice(0, limit).map((r) => r.map((v) => toScalar(toJsonSafe(v))));
    return {
      kind: "table",
      title: `${table.kind === "view" ? "View" : "Table"} ${table.name}`,
      columns: res.columns,
      rows,
      ...(count.rows !== null ? { totalRows: count.rows } : {}),
      truncated: res.rows.length > limit,
    };
  }

  async entityIndex(options: { limit?: number } = {}): Promise<EntityIndexEntry[]> {
    return buildEntityIndex(this.engine, await this.tables(), options.limit ?? DEFAULT_ENTITY_LIMIT);
  }

  /**
   * The schema as data for query formulation, from the same cached summary describe() renders.
   * SQLite leaves a foreign key's referenced columns unnamed when they are the referenced table's
   * primary key; they are filled in here so a caller can always write the join condition.
   */
  async structure(): Promise<KbStructure> {
    const summary = await this.summary();
    return {
      kind: "sql",
      dialect: this.engine.dialect,
      tables: summary.tables.map((t) => {
        const stats = summary.stats.get(t.name);
        return {
          name: t.name,
          columns: t.columns.map((c) => ({ name: c.name, type: c.type, examples: stats?.examples[c.name] ?? [] })),
          primaryKey: t.primaryKey,
          foreignKeys: t.foreignKeys.map((fk) => ({
            columns: fk.columns,
            refTable: findTable(summary.tables, fk.refTable)?.name ?? fk.refTable,
            refColumns: fk.refColumns.length > 0 ? fk.refColumns : (findTable(summary.tables, fk.refTable)?.primaryKey ?? []),
          })),
          rows: stats?.rows ?? null,
        };
      }),
    };
  }

  async close(): Promise<void> {
    this.tablesCache = null;
    this.summaryCache = null;
    await this.engine.close();
  }

  private tables(): Promise<TableInfo[]> {
    const stamp = this.engine.dataStamp();
    if (this.tablesCache?.stamp !== stamp) {
      const promise = this.engine.loadTables().then((tables) => {
        this.loadedTables = tables;
        return tables;
      });
      this.tablesCache = { stamp, promise };
      promise.catch(() => {
        if (this.tablesCache?.promise === promise) this.tablesCache = null;
      });
    }
    return this.tablesCache.promise;
  }

  private summary(): Promise<SchemaSummary> {
    const stamp = this.engine.dataStamp();
    if (this.summaryCache?.stamp !== stamp) {
      const promise = this.loadSummary();
      this.summaryCache = { stamp, promise };
      promise.catch(() => {
        if (this.summaryCache?.promise === promise) this.summaryCache = null;
      });
    }
    return this.summaryCache.promise;
  }

  private async loadSummary(): Promise<SchemaSummary> {
    const engineVersion = await this.engine.version();
    const tables = await this.tables();
    const stats = new Map<string, TableStats>();
    for (const table of tables) {
      try {
        const count = await this.engine.countRows(table);
        const sample = await this.engine.readInternal(`SELECT * FROM ${this.engine.tableRef(table)} LIMIT ${EXAMPLE_SOURCE_ROWS}`, {
          timeoutMs: STEP_TIMEOUT_MS,
          maxRows: EXAMPLE_SOURCE_ROWS,
          table,
        });
        stats.set(table.name, { rows: count.rows, approximate: count.approximate, examples: examplesOf(sample.columns, sample.rows) });
      } catch (e) {
        // A view that is too slow, too large or calls what queries may not is described without counts or examples.
        if (!isBackendError(e) || e.code === "KB_UNAVAILABLE") throw e;
        stats.set(table.name, { rows: null, approximate: true, examples: {} });
      }
    }
    return { tables, stats, engineVersion: engineVersion || DIALECT_LABEL[this.engine.dialect] };
  }
}
