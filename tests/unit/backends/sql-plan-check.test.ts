import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { QueryRejectedError } from "@/lib/backends/errors";
import { inspectPostgresPlan } from "@/lib/backends/sql/postgres/plan-check";
import { PlanTextError, readPlanExpression } from "@/lib/backends/sql/postgres/plan-text";

/**
 * The PostgreSQL plan walker on plans a real server printed (tests/fixtures/postgres-plans.json, recorded
 * by tests/support/record-postgres-plans.ts): what field notation, views and casts resolve to is read from
 * the plan, and anything the walker does not know refuses the query. The same checks run against a live
 * server in tests/integration/security/sql-postgres-attacks.test.ts.
 */
interface RecordedCase {
  name: string;
  sql: string;
  expect: string;
  plan: unknown;
}
const recorded = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../fixtures/postgres-plans.json"), "utf8")) as {
  server: string;
  schema: string;
  cases: RecordedCase[];
};

function outcome(plan: unknown, sql = "SELECT 1", schema = recorded.schema): string {
  try {
    inspectPostgresPlan(plan, sql, schema);
    return "ok";
  } catch (e) {
    expect(e).toBeInstanceOf(QueryRejectedError);
    return (e as Error).message;
  }
}

const plan = (node: Record<string, unknown>) => [{ Plan: { "Node Type": "Result", ...node } }];

describe(`the plan walker on plans of ${recorded.server}`, () => {
  it.each(recorded.cases.map((c) => [c.name, c] as const))("%s", (_, c) => {
    const said = outcome(c.plan, c.sql);
    if (c.expect === "ok") expect(said).toBe("ok");
    else expect(said).toContain(c.expect);
  });

  it("returns the names the catalog must confirm: unqualified functions, operators and the schema's own types", () => {
    const c = recorded.cases.find((x) => x.name.startsWith("an enum"))!;
    const calls = inspectPostgresPlan(c.plan, c.sql, "kb");
    expect(calls.operators.sort()).toEqual(["<<", "="]);
    expect(calls.types).toEqual(["mood"]);
    expect(calls.relations).toEqual(["customer"]);
  });
});

describe("the plan walker fails closed", () => {
  it("refuses a plan it was not given, or given twice", () => {
    expect(outcome(null)).toMatch(/returned no plan/);
    expect(outcome([{ Plan: { "Node Type": "Result" } }, { Plan: { "Node Type": "Result" } }])).toMatch(/returned no plan/);
  });

  it("refuses node kinds a read does not need", () => {
    expect(outcome(plan({ "Node Type": "LockRows" }))).toMatch(/row locks/);
    expect(outcome(plan({ "Node Type": "ModifyTable" }))).toMatch(/a write is not allowed/);
    expect(outcome(plan({ "Node Type": "Custom Scan" }))).toMatch(/custom scan/);
    expect(outcome(plan({ "Node Type": "Frobnicate" }))).toMatch(/a plan step "Frobnicate" is not allowed/);
  });

  it("refuses a scan whose schema the plan does not print", () => {
    expect(outcome(plan({ "Node Type": "Seq Scan", "Relation Name": "t" }))).toMatch(/does not say which schema t is in/);
  });

  it("reads unknown keys as expressions, and values of unknown kinds not at all", () => {
    expect(outcome(plan({ "Some Future Key": "pg_sleep(1)" }))).toMatch(/pg_sleep\(\) is not allowed/);
    expect(outcome(plan({ "Future List": [["lower(x.y)"], ["pg_read_file('/etc/passwd'::text)"]] }))).toMatch(
      /pg_read_file\(\) is not allowed/,
    );
    expect(outcome(plan({ "Future Value": 10n as unknown as number }))).toMatch(/cannot check/);
  });

  it("refuses keywords and characters the deparser's grammar does not hold", () => {
    expect(outcome(plan({ Output: ["XMLELEMENT(NAME x)"] }))).toMatch(/holds the keyword XMLELEMENT, which Mosaic cannot check/);
    expect(outcome(plan({ Output: ["\\x"] }))).toMatch(/holds the character "\\\\"/);
    expect(outcome(plan({ Output: ["'unterminated"] }))).toMatch(/unterminated string/);
  });

  it("refuses qualified functions, operators and types outside pg_catalog", () => {
    expect(outcome(plan({ Output: ["kb.evil(1)"] }))).toMatch(/kb\.evil\(\) is not allowed; only built-in functions/);
    expect(outcome(plan({ Output: ["pg_catalog.lower('A'::text)"] }))).toBe("ok");
    expect(outcome(plan({ Output: ["(1 OPERATOR(kb.+) 2)"] }))).toMatch(/operator kb\.\+ is not allowed/);
    expect(outcome(plan({ Output: ["'x'::private.secret_type"] }))).toMatch(/casting to private\.secret_type is not allowed/);
    expect(outcome(plan({ Output: ["'<a/>'::xml"] }))).toMatch(/XML values are not allowed/);
  });

  it("refuses functions hidden in a function scan's name", () => {
    expect(outcome(plan({ "Node Type": "Function Scan", "Function Name": "dblink", Schema: "public" }))).toMatch(
      /public\.dblink\(\) is not allowed/,
    );
  });
});

describe("reading deparsed expressions", () => {
  it("tells calls from columns, strings and SQL syntax", () => {
    const facts = readPlanExpression(
      `(CASE WHEN (c.n > '1'::numeric) THEN "left"(c.name, 2) ELSE 'pg_sleep(1)'::text END || EXTRACT(year FROM now()))`,
    );
    expect(facts.functions.map((f) => f.name)).toEqual(["left", "now"]);
    expect(facts.operators.map((o) => o.name)).toEqual([">", "||"]);
    expect(facts.types.map((t) => t.name)).toEqual(["numeric", "text"]);
  });

  it("reads multi-word and modified type names", () => {
    const facts = readPlanExpression(
      `('1'::double precision, (now())::timestamp(3) without time zone, 'x'::character varying(40), '{1}'::integer[], 'a'::"char")`,
    );
    expect(facts.types.map((t) => t.name)).toEqual([
      "double precision",
      "timestamp without time zone",
      "character varying",
      "integer",
      '"char"',
    ]);
  });

  it("does not count count(*), alias.*, OVER (?) or named arguments as operators", () => {
    expect(readPlanExpression("count(*) OVER (?)").operators).toEqual([]);
    expect(readPlanExpression("row_to_json(c.*)").operators).toEqual([]);
    expect(readPlanExpression("make_interval(days => 1)").operators).toEqual([]);
  });

  it("gives up on what it cannot read", () => {
    expect(() => readPlanExpression("a ; b")).toThrow(PlanTextError);
    expect(() => readPlanExpression("OPERATOR(+)")).toThrow(PlanTextError);
    expect(() => readPlanExpression("x::")).toThrow(PlanTextError);
    expect(() => readPlanExpression("\u00e9")).toThrow(PlanTextError);
  });
});
