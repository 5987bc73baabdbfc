import { describe, expect, it } from "vitest";
import { answerFromResult, resultValueType } from "@/lib/pipeline/stages/answer/result-answer";
import { CHECKS, critique } from "@/lib/pipeline/stages/critique/classical";
import type { QueryResult } from "@/lib/pipeline/contracts";
import { KB, executed, intent, scored, sqlRow } from "./answer-fixtures";

/** An answer drawn from a committed query result carries the kind of its value, which the critic type-checks. */

const COUNT_SQL = `SELECT COUNT(*) AS "number of orders" FROM "orders" WHERE "status" = 'returned'`;

function result(columns: string[], rows: QueryResult["rows"], grouped: QueryResult["grouped"] = null): QueryResult {
  return {
    kbId: KB.sales.id,
    kbName: KB.sales.name,
    language: "sql",
    query: COUNT_SQL,
    columns,
    rows,
    pieceIds: rows.map((_, i) => `ev_${i}`),
    truncated: false,
    cap: 1000,
    fit: null,
    grouped,
  };
}

describe("the value type of a query result answer", () => {
  it("is read from the column and the value, not from the shape", () => {
    expect(resultValueType(result(["number of orders"], [[7]]))).toBe("count");
    expect(resultValueType(result(["released"], [[1999]]))).toBe("date");
    expect(resultValueType(result(["title"], [["The Matrix"], ["Speed Racer"]]))).toBe("entity");
    // A grouped table is the kind of its measure.
    expect(
      resultValueType(
        result(
          ["region", "total revenue"],
          [
            ["Nordics", 10],
            ["DACH", 12],
          ],
          { keys: [0], measures: [1] },
        ),
      ),
    ).toBe("money");
    expect(resultValueType(result(["title"], []))).toBeNull();
  });

  it("lets a count from a committed query pass the critic's answer-type check (no extra round)", () => {
    const q = "How many orders were returned?";
    const answer = answerFromResult(result(["number of orders"], [[7]]), 0.35);
    expect(answer.candidates[0].type).toBe("count");
    const evidence = [scored(sqlRow(KB.sales, "orders", ["number of orders"], [7], COUNT_SQL), 1)];
    const outcome = critique({
      intent: intent(q, { wh: "how many", answerTypes: ["count"], aggregate: "count" }),
      evidence: evidence.map((e) => ({ ...e, piece: { ...e.piece, id: "ev_0" } })),
      executed: [executed(KB.sales, "schema-linking", "sql", COUNT_SQL, "ok", 1)],
      answer,
      candidates: [],
      round: 1,
      maxRounds: 3,
      previousFeedback: [],
    });
    expect(outcome.checks.find((c) => c.name === CHECKS.answerType)).toMatchObject({ passed: true });
    expect(outcome.feedback).toBeNull();
  });
});
