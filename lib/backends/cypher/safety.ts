import neo4j, { type Driver } from "neo4j-driver";
import { QueryRejectedError } from "../errors";
import { queryLimits } from "../limits";
import { checkListBounds } from "./list-bounds";

/**
 * DESIGN.md's Cypher rule: a query must be read-only, one statement, without LOAD CSV, apoc.* or dbms.*.
 * Neo4j itself is the parser: `EXPLAIN <query>` compiles the query without running it and returns the
 * query type (r, rw, w, s) and the plan. We decide on those, never on keywords in the text, so a comment,
 * a string literal or odd spacing neither hides a write nor refuses a harmless read. The READ access
 * mode of the session (see read.ts) is a second, independent line of defence.
 */

/** The parts of a driver `Plan` we read; plain objects of this shape are accepted so tests can build them. */
export interface PlanLike {
  operatorType: string;
  arguments?: Record<string, unknown>;
  children?: PlanLike[];
}

export interface ExplainSummaryLike {
  /** "r" read-only, "rw" read-write, "w" write-only, "s" schema or system. */
  queryType?: string;
  plan?: PlanLike | false | null;
}

export interface SafetyReport {
  queryType: string;
  /** Operator names in plan order, without the "@database" suffix Neo4j adds. */
  operators: string[];
  /** Procedures the query calls (all on ALLOWED_PROCEDURES when the check passed). */
  procedures: string[];
}

/**
 * Read-only procedures a generated query may call: schema introspection and index look-ups. Everything
 * else is refused, including read-only procedures that reach outside the graph (apoc.load.*) or into
 * the server (dbms.*), because a plan cannot tell what a procedure does with the file system or network.
 */
export const ALLOWED_PROCEDURES: ReadonlySet<string> = new Set([
  "db.labels",
  "db.relationshipTypes",
  "db.propertyKeys",
  "db.schema.visualization",
  "db.schema.nodeTypeProperties",
  "db.schema.relTypeProperties",
  "db.index.fulltext.queryNodes",
  "db.index.fulltext.queryRelationships",
  "db.index.vector.queryNodes",
  "db.index.vector.queryRelationships",
]);

/** Operators that change data, with the clause a person wrote, for the refusal message. */
const WRITE_OPERATORS: [prefix: string, clause: string][] = [
  ["DetachDelete", "DETACH DELETE"],
  ["Delete", "DELETE"],
  ["Create", "CREATE"],
  ["Merge", "MERGE"],
  ["RemoveLabels", "REMOVE"],
  ["SetLabels", "SET"],
  ["Set", "SET or REMOVE"],
  ["Foreach", "FOREACH"],
  ["LockNodes", "MERGE"],
];

const SCHEMA_OPERATORS: [prefix: string, clause: string][] = [
  ["CreateIndex", "CREATE INDEX"],
  ["CreateFulltextIndex", "CREATE FULLTEXT INDEX"],
  ["CreateConstraint", "CREATE CONSTRAINT"],
  ["DropIndex", "DROP INDEX"],
  ["DropConstraint", "DROP CONSTRAINT"],
  ["DoNothingIfExists", "CREATE … IF NOT EXISTS"],
];

/** "ProduceResults@neo4j" → "ProduceResults"; Neo4j 4+ suffixes operators with the database name. */
export function operatorName(plan: PlanLike): string {
  const at = plan.operatorType.indexOf("@");
  return at >= 0 ? plan.operatorType.slice(0, at) : plan.operatorType;
}

function details(plan: PlanLike): string {
  const d = plan.arguments?.Details ?? plan.arguments?.details;
  return typeof d === "string" ? d : "";
}

/** "db.labels() :: (label :: STRING)" → "db.labels": the plan prints the resolved procedure signature. */
export function procedureNameFromDetails(text: string): string | null {
  const open = text.indexOf("(");
  const name = (open >= 0 ? text.slice(0, open) : text).trim();
  return /^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/.test(name) ? name : null;
}

/**
 * apoc.* and dbms.* function calls inside expressions. The plan prints expressions in Neo4j's canonical
 * form with literals lifted to $autoparameters, so a string like 'apoc.x(' in the query cannot match.
 */
const FORBIDDEN_FUNCTION = /(?<![\w.`$])((?:apoc|dbms)\.[A-Za-z_][\w.]*)\s*\(/i;

function walk(plan: PlanLike, visit: (p: PlanLike) => void): void {
  visit(plan);
  for (const child of plan.children ?? []) walk(child, visit);
}

function clauseFor(op: string, table: [string, string][]): string | null {
  for (const [prefix, clause] of table) if (op.startsWith(prefix)) return clause;
  return null;
}

/**
 * Decides from an EXPLAIN summary whether the query may run; throws QueryRejectedError naming the first
 * reason found. Pure, so the rules are unit-tested with hand-made plans.
 */
export function inspectExplainSummary(summary: ExplainSummaryLike, query: string): SafetyReport {
  const plan = summary.plan;
  if (!plan) throw new QueryRejectedError("Neo4j returned no plan for the query, so it could not be checked", query);
  const operators: string[] = [];
  const procedures: string[] = [];
  const reasons: string[] = [];
  const writes = new Set<string>();
  const schema = new Set<string>();

  walk(plan, (p) => {
    const op = operatorName(p);
    operators.push(op);
    const text = details(p);
    if (op === "LoadCSV") {
      reasons.push("LOAD CSV is not allowed: it reads files and URLs from the database server");
    } else if (op === "TransactionApply" || op === "TransactionForeach") {
      reasons.push("CALL { … } IN TRANSACTIONS is not allowed: queries run in one read transaction");
    } else if (op.startsWith("ProcedureCall")) {
      const name = procedureNameFromDetails(text);
      if (!name) {
        reasons.push("a procedure call that could not be identified is not allowed");
      } else {
        procedures.push(name);
        const lower = name.toLowerCase();
        if (lower.startsWith("apoc.")) reasons.push(`APOC procedures are not allowed (${name})`);
        else if (lower.startsWith("dbms.")) reasons.push(`dbms.* procedures are not allowed (${name})`);
        else if (!ALLOWED_PROCEDURES.has(name)) {
          reasons.push(
            `procedure ${name} is not allowed; only schema and index look-ups may be called (${[...ALLOWED_PROCEDURES].join(", ")})`,
          );
        }
      }
    } else if (op === "AdministrationCommand" || op.startsWith("Show") || op.startsWith("Terminate")) {
      reasons.push(`administration commands are not allowed (${op})`);
    } else {
      const schemaClause = clauseFor(op, SCHEMA_OPERATORS);
      const writeClause = schemaClause ? null : clauseFor(op, WRITE_OPERATORS);
      if (schemaClause) schema.add(schemaClause);
      if (writeClause) writes.add(writeClause);
    }
    const fn = FORBIDDEN_FUNCTION.exec(text);
    if (fn) {
      reasons.push(
        fn[1]!.toLowerCase().startsWith("apoc.")
          ? `APOC functions are not allowed (${fn[1]})`
          : `dbms.* functions are not allowed (${fn[1]})`,
      );
    }
  });

  if (schema.size > 0) reasons.unshift(`it changes the schema (${[...schema].join(", ")})`);
  if (writes.size > 0) reasons.unshift(`Cypher queries may only read the graph, and this one writes (${[...writes].join(", ")})`);
  const queryType = summary.queryType ?? "";
  if (reasons.length === 0 && queryType !== "r") {
    reasons.push(
      queryType === "s"
        ? "it is a schema or system command, and only read queries may run"
        : `Neo4j reports it as a ${queryType === "w" || queryType === "rw" ? "writing" : `"${queryType || "unknown"}"`} query, and only read queries may run`,
    );
  }
  if (reasons.length > 0) throw new QueryRejectedError(reasons[0]!, query);
  return { queryType, operators, procedures };
}

/** What can run a Cypher statement: a session or a transaction of the driver. */
export interface CypherRunner {
  run(query: string, parameters?: Record<string, unknown>): PromiseLike<{ summary: ExplainSummaryLike }>;
}

function isDriver(x: CypherRunner | Driver): x is Driver {
  return typeof (x as Driver).session === "function" && typeof (x as Driver).verifyConnectivity === "function";
}

/** On its own line, so the user's first line keeps its columns in Neo4j's error positions. */
const EXPLAIN_PREFIX = "EXPLAIN\n";

/**
 * Compiles the query with EXPLAIN (nothing runs) and applies inspectExplainSummary. Parameters are sent
 * as parameters, never spliced. Neo4j's errors (syntax, two statements) propagate for the caller to map
 * with mapNeo4jError.
 */
export async function checkCypherSafety(
  runner: CypherRunner | Driver,
  query: string,
  params: Record<string, unknown> = {},
  options: { database?: string } = {},
): Promise<SafetyReport> {
  if (isDriver(runner)) {
    const session = runner.session({ defaultAccessMode: neo4j.session.READ, database: options.database });
    try {
      return await checkCypherSafety(session, query, params);
    } finally {
      await session.close();
    }
  }
  const { maxChars } = queryLimits();
  if (query.length > maxChars) {
    throw new QueryRejectedError(
      `the query is ${query.length.toLocaleString("en")} characters long, and at most ${maxChars.toLocaleString("en")} are allowed`,
      query,
    );
  }
  let result: { summary: ExplainSummaryLike };
  try {
    result = await runner.run(`${EXPLAIN_PREFIX}${query}`, params);
  } catch (error) {
    throw withPositionsOfQuery(error);
  }
  const report = inspectExplainSummary(result.summary, query);
  // Values an expression builds are not counted against the transaction's memory limit: bound them here.
  checkListBounds(query, params, planMentions(result.summary.plan || null));
  return report;
}

/** Which of range() and reduce() the plan calls, so the text check can be held to having seen them. */
function planMentions(plan: PlanLike | null): { range: boolean; reduce: boolean } {
  const seen = { range: false, reduce: false };
  if (plan)
    walk(plan, (p) => {
      const text = details(p);
      if (/(?<![\w.`$])range\s*\(/i.test(text)) seen.range = true;
      if (/(?<![\w.`$])reduce\s*\(/i.test(text)) seen.reduce = true;
    });
  return seen;
}

/**
 * Neo4j reports "(line 2, column 10 (offset: 17))" for the text it compiled, which starts with our
 * EXPLAIN line: shift line and offset back so they point into the query the caller wrote.
 */
function withPositionsOfQuery(error: unknown): unknown {
  const e = error as { message?: unknown };
  if (typeof e?.message === "string") {
    e.message = e.message.replace(
      /\(line (\d+), column (\d+) \(offset: (\d+)\)\)/g,
      (_, line: string, column: string, offset: string) =>
        `(line ${Math.max(1, Number(line) - 1)}, column ${column} (offset: ${Math.max(0, Number(offset) - EXPLAIN_PREFIX.length)}))`,
    );
  }
  return error;
}
