import { describe, expect, it } from "vitest";
import { openBackend } from "@/lib/backends/registry";
import type { KbKind } from "@/lib/backends/types";
import { getTableNotes, saveTableNotes } from "@/lib/catalog/table-notes-store";
import { readTableNotes } from "@/lib/catalog/table-notes";
import { DEMO_KB_NAMES } from "@/lib/demo/seed-catalog";
import { AppError } from "@/lib/errors";
import { useDemoWorkspace } from "../support/demo-workspace";
import { TARGET_ENGINE } from "../support/test-database";

/** An analyst's notes on a database table (column synonyms, measures): checked on the engine when saved, used by the next ask. */
describe(`notes on a table (${TARGET_ENGINE})`, () => {
  const ws = useDemoWorkspace("mosaic-notes-");
  const items = async () =>
    ws.handle.prisma.sourceObject.findFirstOrThrow({
      where: { key: "order_items", kb: { name: DEMO_KB_NAMES.sql } },
      include: { kb: true },
    });
  const analyst = async () => {
    const a = await ws.handle.prisma.user.findUniqueOrThrow({ where: { email: "analyst@mosaic.local" }, include: { memberships: true } });
    return { id: a.id, role: "ANALYST" as const, groupIds: a.memberships.map((m) => m.groupId) };
  };
  const failure = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      if (AppError.is(e)) return e;
      throw e;
    }
    throw new Error("expected a refusal");
  };

  it("the demo's order lines carry the analyst's measures, with the table's columns to note", async () => {
    const view = await getTableNotes(ws.handle.prisma, await analyst(), (await items()).id);
    expect(view.columns).toEqual(["order_id", "product_id", "quantity", "unit_price"]);
    expect(view.notes.measures.map((m) => `${m.name} = ${m.aggregate}(${m.expression})`)).toEqual(["units sold = sum(quantity)"]);
  });

  it("refuses notes that do not fit the table, naming the field, and keeps what was saved", async () => {
    const o = await items();
    const before = o.annotations;
    const who = await analyst();
    const wrongColumn = await failure(
      saveTableNotes(ws.handle.prisma, ws.deps, who, {
        id: o.id,
        notes: { measures: [{ name: "margin", expression: "unit_price - cost" }] },
      }),
    );
    expect(wrongColumn.code).toBe("VALIDATION");
    expect(wrongColumn.fields?.["measures.0.expression"]).toMatch(/"cost" is not a column of this table/);
    const clash = await failure(
      saveTableNotes(ws.handle.prisma, ws.deps, who, { id: o.id, notes: { measures: [{ name: "Quantity", expression: "quantity" }] } }),
    );
    expect(clash.fields?.["measures.0.name"]).toMatch(/already has a column called "Quantity"/);
    const unknown = await failure(
      saveTableNotes(ws.handle.prisma, ws.deps, who, { id: o.id, notes: { columns: [{ name: "discount", synonyms: ["rebate"] }] } }),
    );
    expect(unknown.fields?.["columns.0.name"]).toMatch(/"discount" is not a column of order_items/);
    expect((await items()).annotations).toEqual(before);
    // Only a database's tables take notes.
    const report = await ws.handle.prisma.sourceObject.findFirstOrThrow({ where: { key: "annual-report-2025-md#table-1" } });
    expect((await failure(getTableNotes(ws.handle.prisma, who, report.id))).code).toBe("VALIDATION");
  });

  it("a measure saved now ranks the next answer, and matches the engine's own ranking; removed, it is gone from the next query", async () => {
    const o = await items();
    const who = await analyst();
    const seeded = readTableNotes(o.annotations);
    await saveTableNotes(ws.handle.prisma, ws.deps, who, {
      id: o.id,
      notes: {
        ...seeded,
        measures: [...seeded.measures, { name: "gross takings", expression: "quantity * unit_price", synonyms: ["takings"] }],
      },
    });
    const question = "Which customer had the highest takings in 2025?";
    const first = await ws.ask(question);
    const answerQuery = first.queries.find((q) => q.role === "answer")?.query.text ?? "";
    expect(answerQuery).toContain('ORDER BY SUM("order_items"."quantity" * "order_items"."unit_price") DESC');
    const gold = await openBackend({ ...o.kb, kind: o.kb.kind as KbKind }, ws.deps).execute(
      {
        language: "sql",
        text: `SELECT c.name FROM order_items oi JOIN orders o ON o.order_id = oi.order_id JOIN customers c ON c.customer_id = o.customer_id
               WHERE o.order_date >= '2025-01-01' AND o.order_date < '2026-01-01' GROUP BY c.customer_id, c.name ORDER BY SUM(oi.quantity * oi.unit_price) DESC LIMIT 1`,
      },
      { maxRows: 1, timeoutMs: 10_000 },
    );
    expect(first.answer.text).toBe(String(gold.records[0].name));

    await saveTableNotes(ws.handle.prisma, ws.deps, who, { id: o.id, notes: seeded });
    const again = await ws.ask(question);
    expect(again.queries.map((q) => q.query.text).join("\n")).not.toContain('SUM("order_items"."quantity" * "order_items"."unit_price")');
  });
});
