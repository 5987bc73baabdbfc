import { QueryRejectedError } from "../../errors";
import { ALLOWED_FUNCTIONS, ALLOWED_POSTGRES_OPERATORS, BUILTIN_SCHEMA } from "../allow-list";
import { notAllowedFunction } from "../sqlite/query-tree";
import { PlanTextError, readPlanExpression } from "./plan-text";

/**
 * The second wall for PostgreSQL (DESIGN.md): the server's own plan of the query, from
 * `EXPLAIN (VERBOSE, FORMAT JSON)` in the query's read-only transaction, says what the query calls once
 * names are resolved. The parse tree cannot: PostgreSQL runs `(2.5::float8).pg_sleep` and `x.ts_stat`
 * (no such column) as the calls pg_sleep(2.5) and ts_stat(x), and libpg-query sees only a field or a
 * column there. The plan prints them as the calls they are.
 *
 * Every plan node, subplan and init plan is walked; every expression the plan prints is read with
 * plan-text.ts; every scanned relation must be in the knowledge base's schema; every function must be a
 * built-in on the allow-list, every operator a built-in symbol on the allow-list, every cast a harmless
 * value type. What this returns is checked against the catalog in the same transaction (engine.ts): a
 * name printed without a schema was found through the search path, which holds the knowledge base's
 * schema, so a function or operator of that schema with the same name must not exist.
 *
 * Fail closed: a node kind, a keyword, a character or a shape not known here refuses the query.
 */

/** Node kinds of a read-only SELECT's plan. Row locks, writes, TABLESAMPLE, XMLTABLE and custom scans are not. */
const ALLOWED_NODE_TYPES = new Set([
  "Result",
  "ProjectSet",
  "Append",
  "Merge Append",
  "Recursive Union",
  "BitmapAnd",
  "BitmapOr",
  "Nested Loop",
  "Merge Join",
  "Hash Join",
  "Seq Scan",
  "Index Scan",
  "Index Only Scan",
  "Bitmap Index Scan",
  "Bitmap Heap Scan",
  "Tid Scan",
  "Tid Range Scan",
  "Subquery Scan",
  "Function Scan",
  "Values Scan",
  "CTE Scan",
  "WorkTable Scan",
  "Foreign Scan",
  "Materialize",
  "Memoize",
  "Result Cache",
  "Sort",
  "Incremental Sort",
  "Group",
  "Aggregate",
  "WindowAgg",
  "Unique",
  "SetOp",
  "Hash",
  "Limit",
  "Gather",
  "Gather Merge",
]);

const NODE_WORDS: Record<string, string> = {
  LockRows: "row locks (FOR UPDATE / FOR SHARE)",
  ModifyTable: "a write",
  "Sample Scan": "TABLESAMPLE",
  "Table Function Scan": "XMLTABLE or JSON_TABLE",
  "Named Tuplestore Scan": "a transition table",
  "Custom Scan": "a custom scan of an extension",
};

/** Keys whose text is a name or a label, never an expression. Every other text is read as an expression. */
const NAME_KEYS = new Set([
  "Node Type",
  "Strategy",
  "Partial Mode",
  "Parent Relationship",
  "Subplan Name",
  "Relation Name",
  "Schema",
  "Alias",
  "Index Name",
  "Scan Direction",
  "Join Type",
  "CTE Name",
  "Function Name",
  "Command",
  "Sort Method",
  "Sort Space Type",
  "Cache Mode",
  "Storage",
  // A foreign table's query as its wrapper sends it: derived from what is checked here.
  "Remote SQL",
]);

/**
 * Types a plan may show a value cast to or typed as: built-in value types whose input functions only parse
 * text. Names as format_type prints them. Not here: the reg* look-up types, xml, and anything of an
 * extension; a type of the knowledge base's own schema (an enum a column uses) is accepted by the catalog
 * check.
 */
export const PLAN_VALUE_TYPES: ReadonlySet<string> = new Set([
  "smallint",
  "integer",
  "bigint",
  "numeric",
  "real",
  "double precision",
  "text",
  "character varying",
  "character",
  "bpchar",
  '"char"',
  "name",
  "boolean",
  "date",
  "time without time zone",
  "time with time zone",
  "timestamp without time zone",
  "timestamp with time zone",
  "interval",
  "json",
  "jsonb",
  "jsonpath",
  "uuid",
  "bytea",
  "inet",
  "cidr",
  "macaddr",
  "macaddr8",
  "money",
  "bit",
  "bit varying",
  "oid",
  "unknown",
  "record",
  "tsvector",
  "tsquery",
  "point",
  "line",
  "lseg",
  "box",
  "path",
  "polygon",
  "circle",
  "int4range",
  "int8range",
  "numrange",
  "tsrange",
  "tstzrange",
  "daterange",
  "int4multirange",
  "int8multirange",
  "nummultirange",
  "tsmultirange",
  "tstzmultirange",
  "datemultirange",
]);

const LOOKUP_TYPES = /^reg(class|proc|procedure|oper|operator|type|namespace|role|config|dictionary|collation)$/;

export interface PlanCalls {
  /** Functions printed without a schema (pg_catalog's, unless the knowledge base's schema has one of that name). */
  functions: string[];
  /** Operators printed without a schema, likewise. */
  operators: string[];
  /** Type names outside PLAN_VALUE_TYPES printed without a schema: allowed only when the knowledge base's schema defines them. */
  types: string[];
  /** Relations the plan scans, all in the knowledge base's schema. */
  relations: string[];
}

function quoted(schema: string, name: string): string {
  return `${schema}.${name}`;
}

/**
 * Walks EXPLAIN (VERBOSE, FORMAT JSON) output. Throws QueryRejectedError naming the first thing refused;
 * returns what the catalog must still confirm. Pure, so the rules are unit-tested on recorded plans.
 */
export function inspectPostgresPlan(explain: unknown, sql: string, schema: string): PlanCalls {
  const refuse = (reason: string): never => {
    throw new QueryRejectedError(reason, sql);
  };
  const top = Array.isArray(explain) && explain.length === 1 ? explain[0] : null;
  if (!isObject(top) || !isObject(top.Plan)) refuse("PostgreSQL returned no plan for the query, so it could not be checked");
  const functions = new Set<string>();
  const operators = new Set<string>();
  const types = new Set<string>();
  const relations = new Set<string>();

  const readExpression = (text: string) => {
    let facts;
    try {
      facts = readPlanExpression(text);
    } catch (e) {
      if (!(e instanceof PlanTextError)) throw e;
      return refuse(`PostgreSQL's plan for it holds ${e.message}, which Mosaic cannot check; write the query more simply`);
    }
    for (const word of facts.sessionWords) refuse(`${word} is not allowed in a query`);
    for (const f of facts.functions) {
      if (f.schema !== null && f.schema !== BUILTIN_SCHEMA)
        refuse(`the function ${quoted(f.schema, f.name)}() is not allowed; only built-in functions may be called`);
      if (!ALLOWED_FUNCTIONS.postgres.has(f.name)) refuse(notAllowedFunction(f.name));
      if (f.schema === null) functions.add(f.name);
    }
    for (const o of facts.operators) {
      if (o.schema !== null && o.schema !== BUILTIN_SCHEMA)
        refuse(`the operator ${quoted(o.schema, o.name)} is not allowed; only built-in operators may be used`);
      if (!ALLOWED_POSTGRES_OPERATORS.has(o.name)) refuse(`the operator ${o.name} is not allowed in a query`);
      if (o.schema === null) operators.add(o.name);
    }
    for (const t of facts.types) {
      const name = t.name;
      if (LOOKUP_TYPES.test(name))
        refuse(`casting to ${name} is not allowed; only number, text, date, time, boolean and JSON types may be cast to`);
      if (t.schema !== null && t.schema !== BUILTIN_SCHEMA && t.schema !== schema)
        refuse(
          `casting to ${quoted(t.schema, name)} is not allowed; only built-in value types and the knowledge base's own types may be used`,
        );
      if (name === "xml") refuse("XML values are not allowed in a query");
      if (!PLAN_VALUE_TYPES.has(name) || t.schema === schema) types.add(name);
    }
  };

  // Iterative: a plan can be deep (a long UNION is a chain of Append nodes).
  const stack: unknown[] = [top];
  while (stack.length > 0) {
    const value = stack.pop();
    // Text inside a list ("Output", "Sort Key", the lists of "Hash Keys") is always an expression.
    if (typeof value === "string") {
      readExpression(value);
      continue;
    }
    if (Array.isArray(value)) {
      for (const v of value) stack.push(v);
      continue;
    }
    if (!isObject(value)) {
      if (value !== null && typeof value !== "number" && typeof value !== "boolean")
        refuse("PostgreSQL's plan for it holds a value Mosaic cannot check");
      continue;
    }
    if ("Node Type" in value) checkNode(value, schema, relations, refuse);
    for (const [key, v] of Object.entries(value)) {
      if (typeof v === "string") {
        if (!NAME_KEYS.has(key)) readExpression(v);
      } else if (v !== null && typeof v === "object") {
        stack.push(v);
      } else if (v !== null && typeof v !== "number" && typeof v !== "boolean") {
        refuse(`PostgreSQL's plan for it holds a value of "${key}" that Mosaic cannot check`);
      }
    }
  }
  return { functions: [...functions], operators: [...operators], types: [...types], relations: [...relations] };
}

function checkNode(node: Record<string, unknown>, schema: string, relations: Set<string>, refuse: (reason: string) => never): void {
  const type = node["Node Type"];
  if (typeof type !== "string") refuse("PostgreSQL's plan for it has a node without a type");
  const nodeType = type as string;
  if (!ALLOWED_NODE_TYPES.has(nodeType))
    refuse(`${NODE_WORDS[nodeType] ?? `a plan step "${nodeType}"`} is not allowed in a query that only reads`);
  if ("Relation Name" in node) {
    const relation = String(node["Relation Name"]);
    const where = node.Schema;
    if (typeof where !== "string") refuse(`PostgreSQL's plan does not say which schema ${relation} is in, so it could not be checked`);
    if (where !== schema)
      refuse(
        `the query reads ${quoted(where as string, relation)}, which is outside this knowledge base's schema "${schema}"; only the knowledge base's own tables and views may be read`,
      );
    relations.add(relation);
  }
  if ("Function Name" in node) {
    const fn = String(node["Function Name"]);
    const where = node.Schema;
    if (where !== BUILTIN_SCHEMA)
      refuse(`the function ${typeof where === "string" ? quoted(where, fn) : fn}() is not allowed; only built-in functions may be called`);
    if (!ALLOWED_FUNCTIONS.postgres.has(fn)) refuse(notAllowedFunction(fn));
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The refusal when the catalog shows a name of the plan also defined by the knowledge base's schema. */
export function shadowedName(kind: "function" | "operator", name: string, schema: string): string {
  return kind === "function"
    ? `the knowledge base's schema "${schema}" defines its own function ${name}(), so a call of ${name}() cannot be told apart from it; queries may call only built-in functions`
    : `the knowledge base's schema "${schema}" defines its own operator ${name}, so ${name} in this query cannot be told apart from it; queries may use only built-in operators`;
}
