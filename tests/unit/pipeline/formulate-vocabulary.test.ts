import { describe, expect, it } from "vitest";
import type { KbStructure } from "@/lib/backends/types";
import { learnVocabulary, withVocabulary } from "@/lib/pipeline/stages/formulate/vocabulary";
import { intent } from "./formulate-fixtures";

/** A payroll schema whose pay column no everyday word names. */
const PAYROLL: KbStructure = {
  kind: "sql",
  dialect: "sqlite",
  tables: [
    {
      name: "staff",
      rows: 3,
      primaryKey: ["staff_id"],
      foreignKeys: [{ columns: ["dept_id"], refTable: "dept", refColumns: ["dept_id"] }],
      columns: [
        { name: "staff_id", type: "INTEGER", examples: [1] },
        { name: "full_name", type: "TEXT", examples: ["Ada"] },
        { name: "annual_comp_eur", type: "REAL", examples: [52000] },
        { name: "hire_yr", type: "INTEGER", examples: [2019] },
        { name: "dept_id", type: "INTEGER", examples: [1] },
      ],
    },
    {
      name: "dept",
      rows: 1,
      primaryKey: ["dept_id"],
      foreignKeys: [],
      columns: [
        { name: "dept_id", type: "INTEGER", examples: [1] },
        { name: "title", type: "TEXT", examples: ["Research"] },
      ],
    },
  ],
};

const sql = (text: string) => ({ language: "sql" as const, text });
const ex = (question: string, text: string) => ({ kbId: "kb", question, query: sql(text) });

describe("the vocabulary guides teach the linker", () => {
  it("maps the guide question's unexplained words to the one column its query uses that no word names", () => {
    const v = learnVocabulary(
      [ex("Which full name earns the most?", 'SELECT full_name FROM staff ORDER BY "annual_comp_eur" DESC LIMIT 1')],
      PAYROLL,
    );
    expect(v.get("earn")).toBe("annual_comp_eur");
    // Shape words and the named column's words teach nothing.
    expect(v.has("most")).toBe(false);
    expect(v.has("full")).toBe(false);
  });

  it("learns nothing when the query uses two columns no word names, or two guides disagree", () => {
    expect(learnVocabulary([ex("Show the pay and start of everyone", "SELECT annual_comp_eur, hire_yr FROM staff")], PAYROLL).size).toBe(0);
    const v = learnVocabulary(
      [
        ex("What does each person earn?", "SELECT full_name, annual_comp_eur FROM staff"),
        ex("When did each person start?", "SELECT full_name, hire_yr FROM staff"),
        ex("Who earned before 2000?", "SELECT full_name FROM staff WHERE hire_yr < 2000"),
      ],
      PAYROLL,
    );
    expect(v.get("start")).toBe("hire_yr");
    expect(v.has("person")).toBe(false);
    expect(v.has("earn")).toBe(false);
  });

  it("offers the learned column's words to the linker only for a question that uses the learned word", () => {
    const v = learnVocabulary([ex("Who earns the most?", "SELECT full_name FROM staff ORDER BY annual_comp_eur DESC LIMIT 1")], PAYROLL);
    const asked = withVocabulary(intent("List the people who earn more than 50000"), v);
    expect(asked.learned).toEqual(["annual_comp_eur"]);
    expect(asked.intent.keywords).toContain("annual comp eur");
    expect(withVocabulary(intent("List the staff hired in 2019"), v).learned).toEqual([]);
  });
});
