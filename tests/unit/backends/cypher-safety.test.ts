import { describe, expect, it } from "vitest";
import { mapNeo4jError, unavailableError } from "@/lib/backends/cypher/driver-errors";
import {
  ALLOWED_PROCEDURES,
  checkCypherSafety,
  inspectExplainSummary,
  procedureNameFromDetails,
  type PlanLike,
} from "@/lib/backends/cypher/safety";
import {
  BackendUnavailableError,
  QueryExecutionError,
  QueryRejectedError,
  QuerySyntaxError,
  QueryTimeoutError,
} from "@/lib/backends/errors";

/** Plans shaped like the driver's: operator types carry "@<database>", details are Neo4j's own rendering. */
function op(operatorType: string, details?: string, ...children: PlanLike[]): PlanLike {
  return { operatorType: `${operatorType}@neo4j`, arguments: details === undefined ? {} : { Details: details }, children };
}

const produce = (...children: PlanLike[]) => op("ProduceResults", "x", ...children);

function refusal(queryType: string, plan: PlanLike): string {
  try {
    inspectExplainSummary({ queryType, plan }, "the query");
  } catch (e) {
    expect(e).toBeInstanceOf(QueryRejectedError);
    return (e as QueryRejectedError).reason;
  }
  throw new Error("the plan was accepted");
}

describe("inspectExplainSummary: what may run, decided on Neo4j's plan", () => {
  it("accepts a read and reports its operators without the database suffix", () => {
    const plan = produce(
      op(
        "Limit",
        "3",
        op("Expand(All)", "(a)-[r:ACTED_IN]->(b)", op("NodeUniqueIndexSeek", "UNIQUE a:Person(name) WHERE name = $autostring_0")),
      ),
    );
    expect(inspectExplainSummary({ queryType: "r", plan }, "q")).toEqual({
      queryType: "r",
      operators: ["ProduceResults", "Limit", "Expand(All)", "NodeUniqueIndexSeek"],
      procedures: [],
    });
  });

  it("refuses writes and names the clause", () => {
    expect(refusal("rw", produce(op("Create", "(x:Foo)")))).toBe("Cypher queries may only read the graph, and this one writes (CREATE)");
    expect(refusal("w", produce(op("EmptyResult", "", op("Merge", "CREATE (x:Foo)", op("NodeByLabelScan", "x:Foo")))))).toMatch(
      /writes \(MERGE\)/,
    );
    expect(refusal("w", produce(op("DetachDelete", "n", op("AllNodesScan", "n"))))).toMatch(/writes \(DETACH DELETE\)/);
    expect(refusal("w", produce(op("Delete", "n")))).toMatch(/writes \(DELETE\)/);
    expect(refusal("w", produce(op("SetProperty", "n.born = NULL")))).toMatch(/writes \(SET or REMOVE\)/);
    expect(refusal("w", produce(op("RemoveLabels", "n:Person")))).toMatch(/writes \(REMOVE\)/);
    expect(refusal("w", produce(op("Foreach", "i IN [1], CREATE (anon_0:Foo)")))).toMatch(/writes \(FOREACH\)/);
  });

  it("refuses a write operator even when the query type claims a read", () => {
    expect(refusal("r", produce(op("Create", "(x)")))).toMatch(/writes \(CREATE\)/);
  });

  it("refuses anything but the read query type, whatever the plan shows", () => {
    expect(refusal("w", produce(op("Argument")))).toMatch(/writing query/);
    expect(refusal("s", produce(op("Argument")))).toMatch(/schema or system command/);
    expect(refusal("", produce(op("Argument")))).toMatch(/"unknown" query/);
    expect(() => inspectExplainSummary({ plan: produce() }, "q")).toThrow(QueryRejectedError);
  });

  it("refuses a summary without a plan: nothing was checked", () => {
    expect(() => inspectExplainSummary({ queryType: "r", plan: false }, "q")).toThrow(/no plan/);
  });

  it("refuses schema commands", () => {
    expect(refusal("s", op("CreateIndex", "RANGE INDEX foo FOR (:Person) ON (zzz)"))).toBe("it changes the schema (CREATE INDEX)");
    expect(refusal("s", op("DropConstraint", "CONSTRAINT foo"))).toMatch(/DROP CONSTRAINT/);
  });

  it("refuses LOAD CSV, which Neo4j counts as a read", () => {
    expect(refusal("r", produce(op("LoadCSV", "row")))).toMatch(/^LOAD CSV is not allowed/);
  });

  it("refuses CALL { … } IN TRANSACTIONS, read or write", () => {
    const read = produce(
      op("TransactionApply", "IN TRANSACTIONS OF 1000 ROWS ON ERROR FAIL", op("Unwind", "range($autoint_0, $autoint_1) AS i")),
    );
    expect(refusal("r", read)).toMatch(/IN TRANSACTIONS is not allowed/);
    expect(refusal("r", produce(op("TransactionForeach", "IN TRANSACTIONS OF 1000 ROWS")))).toMatch(/IN TRANSACTIONS/);
  });

  it("allows the schema and index procedures and nothing else", () => {
    const labels = produce(op("ProcedureCall", "db.labels() :: (label :: STRING)"));
    expect(inspectExplainSummary({ queryType: "r", plan: labels }, "q").procedures).toEqual(["db.labels"]);
    const fulltext = produce(
      op("ProcedureCall", "db.index.fulltext.queryNodes($autostring_0, $autostring_1) :: (node :: NODE, score :: FLOAT)"),
    );
    expect(inspectExplainSummary({ queryType: "r", plan: fulltext }, "q").procedures).toEqual(["db.index.fulltext.queryNodes"]);
    expect(ALLOWED_PROCEDURES.has("db.schema.visualization")).toBe(true);

    expect(refusal("rw", produce(op("ProcedureCall", "apoc.create.node($autolist_0, {}) :: (node :: NODE)")))).toBe(
      "APOC procedures are not allowed (apoc.create.node)",
    );
    // Read-only for Neo4j, but it reads files and URLs.
    expect(refusal("r", produce(op("ProcedureCall", "apoc.load.json($autostring_0) :: (value :: MAP)")))).toMatch(/APOC procedures/);
    expect(refusal("s", produce(op("ProcedureCall", "dbms.components() :: (name :: STRING)")))).toBe(
      "dbms.* procedures are not allowed (dbms.components)",
    );
    expect(refusal("w", produce(op("ProcedureCall", "db.createLabel($autostring_0) :: ()")))).toMatch(
      /^procedure db\.createLabel is not allowed/,
    );
    expect(refusal("r", produce(op("ProcedureCall(VOID)", "custom.thing() :: ()")))).toMatch(/procedure custom\.thing is not allowed/);
    expect(refusal("r", produce(op("ProcedureCall", "")))).toMatch(/could not be identified/);
  });

  it("refuses administration commands, some of which Neo4j reports as reads", () => {
    expect(refusal("r", produce(op("TerminateTransactions", "defaultColumns, transactions(neo4j-transaction-1)")))).toMatch(
      /administration commands are not allowed \(TerminateTransactions\)/,
    );
    expect(refusal("r", produce(op("ShowTransactions", "allTransactions")))).toMatch(/ShowTransactions/);
    expect(refusal("s", { operatorType: "AdministrationCommand@system" })).toMatch(/AdministrationCommand/);
  });

  it("refuses apoc.* and dbms.* functions in expressions, without mistaking variables or literals for them", () => {
    expect(refusal("r", produce(op("Projection", "apoc.text.join($autolist_0, $autostring_1) AS j")))).toBe(
      "APOC functions are not allowed (apoc.text.join)",
    );
    expect(refusal("r", produce(op("Filter", "dbms.secret(n) = $x")))).toMatch(/dbms\.\* functions/);
    const harmless = produce(
      op("Projection", "apoc.name AS name, $autostring_0 AS s, coalesce(n.apoc, 1) AS c", op("AllNodesScan", "apoc")),
    );
    expect(() => inspectExplainSummary({ queryType: "r", plan: harmless }, "q")).not.toThrow();
  });
});

describe("procedureNameFromDetails", () => {
  it("reads the procedure name from Neo4j's signature rendering", () => {
    expect(procedureNameFromDetails("db.labels() :: (label :: STRING)")).toBe("db.labels");
    expect(procedureNameFromDetails("apoc.create.node($autolist_0, {}) :: (node :: NODE)")).toBe("apoc.create.node");
    expect(procedureNameFromDetails("")).toBeNull();
    expect(procedureNameFromDetails("weird name() :: ()")).toBeNull();
  });
});

describe("checkCypherSafety", () => {
  it("explains the query with its parameters, on a line of its own", async () => {
    const calls: [string, Record<string, unknown> | undefined][] = [];
    const runner = {
      run: async (query: string, params?: Record<string, unknown>) => {
        calls.push([query, params]);
        return { summary: { queryType: "r", plan: produce(op("AllNodesScan", "n")) } };
      },
    };
    const report = await checkCypherSafety(runner, "// a comment\nMATCH (n) RETURN n LIMIT $n", { n: 3 });
    expect(calls).toEqual([["EXPLAIN\n// a comment\nMATCH (n) RETURN n LIMIT $n", { n: 3 }]]);
    expect(report.operators).toEqual(["ProduceResults", "AllNodesScan"]);
  });

  it("points Neo4j's error positions into the caller's query, not the EXPLAIN line", async () => {
    const runner = {
      run: async () => {
        throw Object.assign(new Error("Invalid input 'RETURN': expected ')' (line 2, column 10 (offset: 17))"), {
          code: "Neo.ClientError.Statement.SyntaxError",
        });
      },
    };
    await expect(checkCypherSafety(runner, "MATCH (n RETURN n")).rejects.toThrow("(line 1, column 10 (offset: 9))");
  });
});

describe("mapNeo4jError", () => {
  const ctx = { uri: "bolt://db.example.com:7687", user: "reader", database: "movies", query: "Q", timeoutMs: 1500 };
  const err = (code: string, message = "m") => Object.assign(new Error(message), { code });

  it("turns transaction timeouts into QueryTimeoutError", () => {
    for (const code of [
      "Neo.ClientError.Transaction.TransactionTimedOut",
      "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
    ]) {
      const mapped = mapNeo4jError(err(code), ctx);
      expect(mapped).toBeInstanceOf(QueryTimeoutError);
      expect(mapped.message).toBe("The query ran longer than 1500 ms and was stopped.");
    }
  });

  it("refuses two statements and writes caught by the READ session", () => {
    const two = mapNeo4jError(err("Neo.ClientError.Statement.SyntaxError", "Expected exactly one statement per query but got: 2"), ctx);
    expect(two).toBeInstanceOf(QueryRejectedError);
    expect(two.message).toBe("Query refused: only one Cypher statement may run at a time.");
    const write = mapNeo4jError(err("Neo.ClientError.Statement.AccessMode", "Writing in read access mode not allowed."), ctx);
    expect(write).toBeInstanceOf(QueryRejectedError);
  });

  it("keeps Neo4j's syntax message, without the echo after a blank line", () => {
    const mapped = mapNeo4jError(
      err("Neo.ClientError.Statement.SyntaxError", "Invalid input 'x' (line 1, column 3 (offset: 2))\n\n\"the query\""),
      ctx,
    );
    expect(mapped).toBeInstanceOf(QuerySyntaxError);
    expect(mapped.message).toBe("The query could not be parsed: Invalid input 'x' (line 1, column 3 (offset: 2))");
    expect(mapNeo4jError(err("Neo.ClientError.Statement.SemanticError", "Variable `m` not defined"), ctx)).toBeInstanceOf(QuerySyntaxError);
  });

  it("says who could not sign in, which database is missing, and why a server is unreachable", () => {
    expect(mapNeo4jError(err("Neo.ClientError.Security.Unauthorized"), ctx).message).toBe(
      "Neo4j refused the credentials for user reader. Check the user name and password.",
    );
    expect(mapNeo4jError(err("Neo.ClientError.Database.DatabaseNotFound"), ctx).message).toBe(
      'Database "movies" does not exist on bolt://db.example.com:7687.',
    );
    const refused = mapNeo4jError(
      err("ServiceUnavailable", "Failed to connect to server. Caused by: connect ECONNREFUSED 10.0.0.1:7687"),
      ctx,
    );
    expect(refused).toBeInstanceOf(BackendUnavailableError);
    expect(refused.message).toBe("Cannot reach bolt://db.example.com:7687: connection refused.");
    expect(unavailableError(err("ServiceUnavailable", "getaddrinfo ENOTFOUND db.example.com"), ctx).message).toBe(
      "Cannot reach bolt://db.example.com:7687: host name not found.",
    );
  });

  it("passes backend errors through and wraps anything else", () => {
    const own = new QueryRejectedError("x", "Q");
    expect(mapNeo4jError(own, ctx)).toBe(own);
    const other = mapNeo4jError(err("Neo.DatabaseError.General.UnknownError", "boom"), ctx);
    expect(other).toBeInstanceOf(QueryExecutionError);
    // The server's own text ("boom") goes to the log, not to the person.
    expect(other.message).toBe(
      "Neo4j could not run the query (Neo.DatabaseError.General.UnknownError). Try again; if it fails again, check the query against the graph's labels and relationship types.",
    );
    const memory = mapNeo4jError(err("Neo.TransientError.General.MemoryPoolOutOfMemoryError", "The allocation of an extra 2.0 MiB …"), ctx);
    expect(memory).toBeInstanceOf(QueryExecutionError);
    expect(memory.message).toMatch(/^The query needed more memory than one graph query may use, so Neo4j stopped it\./);
  });
});
