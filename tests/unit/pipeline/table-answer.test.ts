import { describe, expect, it } from "vitest";
import { compute } from "@/lib/pipeline/stages/answer/arithmetic";
import { answerTextOf, expressionOf } from "@/lib/pipeline/stages/answer/derivation";
import { answerFromTables } from "@/lib/pipeline/stages/answer/table-answer";
import { tablesInEvidence } from "@/lib/pipeline/stages/answer/table-cells";
import { coordinatedItems, readTableQuestion } from "@/lib/pipeline/stages/answer/table-question";
import { asksForReason } from "@/lib/pipeline/stages/understand/answer-form";
import type { DerivationOperand } from "@/lib/pipeline/contracts";
import { answerQuestion } from "@/lib/pipeline/stages/answer/classical";
import { KB, docRow, intent, passage, scored } from "./answer-fixtures";

// A pension note as reports print it: a caption, period columns with a scale in the header.
const DOC = "pension-note";
const CAPTION = "24. Post employment benefits";
const COLUMNS = ["Item", "2019 €m", "2018 €m", "2017 €m"];
const contribution = docRow(KB.docs, DOC, CAPTION, "", COLUMNS, ["Defined contribution schemes", "166", "178", "192"], 0, "q");
const benefit = docRow(KB.docs, DOC, CAPTION, "", COLUMNS, ["Defined benefit schemes", "57", "44", "20"], 1, "q");
const total = docRow(
  KB.docs,
  DOC,
  CAPTION,
  "",
  COLUMNS,
  ["Total amount charged to income statement (note 23)", "223", "222", "212"],
  2,
  "q",
);
const pension = [scored(contribution, 9), scored(benefit, 8), scored(total, 7)];

// A table whose scale is stated only in the prose before it, with dashes, negatives and n/a.
const LEASES = "lease-note";
const LCOLS = ["Item", "December 31, 2019", "December 31, 2018"];
const leaseRows = [
  docRow(KB.docs, LEASES, "Leases", "", LCOLS, ["Operating lease liabilities", "$1,949", "$2,185"], 0, "q"),
  docRow(KB.docs, LEASES, "Leases", "", LCOLS, ["Finance lease liabilities", "—", "120"], 1, "q"),
  docRow(KB.docs, LEASES, "Leases", "", LCOLS, ["Sublease income", "(35)", "n/a"], 2, "q"),
];
const leaseProse = passage(KB.docs, LEASES, "Leases", null, ["Lease balances consist of the following (in thousands):"], 0, "q");
const leases = [scored(leaseRows[0], 9), scored(leaseRows[1], 8), scored(leaseRows[2], 7), scored(leaseProse, 6)];

function answer(question: string, evidence = pension) {
  const out = answerFromTables(question, evidence);
  if (!out || !("answer" in out)) throw new Error(`no table answer for "${question}": ${JSON.stringify(out)}`);
  return out.answer;
}

describe("arithmetic: TagOp's operators", () => {
  it("computes each operator, rounded to two decimals", () => {
    expect(compute("sum", [1, 2, 3.005])).toEqual({ ok: true, value: 6.01 });
    expect(compute("difference", [2119, 1800])).toEqual({ ok: true, value: 319 });
    expect(compute("average", [166, 178])).toEqual({ ok: true, value: 172 });
    expect(compute("multiplication", [1686902, 7])).toEqual({ ok: true, value: 11808314 });
    expect(compute("division", [7155, 10290])).toEqual({ ok: true, value: 0.7 });
    expect(compute("division", [262, 7250], { percent: true })).toEqual({ ok: true, value: 3.61 });
    expect(compute("change-ratio", [2119, 1800])).toEqual({ ok: true, value: 17.72 });
    // (new − old) / old as TagOp writes it: from a negative base the ratio takes the base's sign.
    expect(compute("change-ratio", [-600, -1200])).toEqual({ ok: true, value: -50 });
    expect(compute("count", [1, 1, 1])).toEqual({ ok: true, value: 3 });
  });

  it("refuses what cannot be computed, saying what is missing", () => {
    expect(compute("difference", [5])).toEqual({ ok: false, problem: "it needs two figures and the evidence gives only one" });
    expect(compute("division", [5, 0], { names: ["Revenue", "Units sold"] })).toEqual({
      ok: false,
      problem: "it would divide by zero (Units sold is 0)",
    });
    expect(compute("change-ratio", [5, 0], { names: ["2019", "2018"] })).toEqual({
      ok: false,
      problem: "the change cannot be a percentage of zero (2018 is 0)",
    });
  });
});

describe("derivation text", () => {
  const op = (value: number, row = "Revenue", column = "2019"): DerivationOperand => ({
    value,
    text: String(value),
    evidenceId: "ev",
    row,
    column,
  });
  it("writes the expression with the operands as figures and the result with its scale", () => {
    expect(expressionOf("change-ratio", [op(2119), op(1800)], 17.72, "percent")).toBe("(2,119 − 1,800) / 1,800 × 100 = 17.72%");
    expect(expressionOf("difference", [op(-42.7), op(20.9)], -63.6, "million")).toBe("(−42.7) − 20.9 = −63.6 million");
    expect(expressionOf("average", [op(166), op(178)], 172, "million")).toBe("(166 + 178) / 2 = 172 million");
    expect(expressionOf("division", [op(262), op(7250)], 3.61, "percent", true)).toBe("262 / 7,250 × 100 = 3.61%");
  });

  it("writes the answer with a shared currency in front and the scale after", () => {
    expect(answerTextOf(3169.5, "million", "$")).toBe("$3,169.5 million");
    expect(answerTextOf(-4931, "thousand", "$")).toBe("-$4,931 thousand");
    expect(answerTextOf(-6.75, "percent", null)).toBe("-6.75%");
    expect(answerTextOf(160, "", "EUR")).toBe("160 EUR");
  });
});

describe("reading a table question", () => {
  it("chooses the operator from the wording", () => {
    expect(readTableQuestion("What was the percentage change in revenue from 2018 to 2019?").cue?.operation).toBe("change-ratio");
    expect(readTableQuestion("What was the change in the land value from 2018 to 2019?").cue?.operation).toBe("difference");
    expect(readTableQuestion("What is the average deferred revenue for 2018 and 2019?").cue?.operation).toBe("average");
    expect(readTableQuestion("What is the total of A and B in 2019?").cue?.operation).toBe("sum");
    expect(readTableQuestion("What is the ratio of Data Center Group to Mobileye goodwill in 2019?").cue?.operation).toBe("division");
    expect(readTableQuestion("How many years did net income exceed $30,000 thousand?").cue?.operation).toBe("count");
    expect(readTableQuestion("What was the revenue in 2019?").cue).toBeNull();
  });

  it("reads comparisons, thresholds and prose questions", () => {
    expect(readTableQuestion("In which year was Research and development expenses less than 1,000 thousands?")).toMatchObject({
      asksPeriod: true,
      threshold: { op: "<", value: 1000 },
    });
    expect(readTableQuestion("In which year was the fair value higher?").comparison).toEqual({ direction: "max", over: "period" });
    expect(readTableQuestion("Why did revenue increase by 14% from 2018 to 2019?").asksForProse).toBe(true);
    expect(readTableQuestion("What does Adjusted gross margin represent?").asksForProse).toBe(true);
    expect(readTableQuestion("What was the gross margin in 2019?").asksForProse).toBe(false);
  });

  it("reads 'in which years was X calculated?' as asking for the table's periods", () => {
    expect(readTableQuestion("In which years was the amount of property and equipment, net calculated?").asksStructure).toBe("periods");
    expect(readTableQuestion("Which years are the total assets calculated for?").asksStructure).toBe("periods");
    expect(readTableQuestion("In which year was the total assets higher?").asksStructure).toBeNull();
    expect(
      readTableQuestion("In which year was Amount computed at the statutory federal income tax rate less than 150 million?").asksStructure,
    ).toBeNull();
    expect(
      readTableQuestion("In which year is the amortization of purchased intangibles included in the CMS results larger?").asksStructure,
    ).toBeNull();
    expect(answer("In which years were the defined benefit schemes as presented less than 50 million?").text).toBe("2018 and 2017");
    expect(answer("In which year is the defined benefit schemes cost included in the table larger?").text).toBe("2019");
    // A row with one period's figure cannot say which period was higher: no figure is given as the year.
    const single = [scored(docRow(KB.docs, "ratio", "Net debt", "", ["Item", "2019"], ["Net debt to EBITDA ratio", "328"], 0, "q"), 9)];
    expect(answerFromTables("In which year was the net debt to EBITDA ratio larger?", single)).toBeNull();
  });

  it("reads compositions, main reasons, frequencies, bases and where something is disclosed as prose questions", () => {
    for (const q of [
      "What does the cost of products revenue comprise of?",
      "What do the change in cash flows from investing activities primarily relate to?",
      "What is the primary reason for the increase in the Company's deferred tax liability?",
      "How often does the company review their internal calculation of WACC?",
      "Where are subsidiary undertakings disclosed?",
      "What is Fair Value based on?",
    ]) {
      expect(readTableQuestion(q).asksForProse, q).toBe(true);
    }
    for (const q of [
      "What was the net sales in the third quarter?",
      "Where is the company headquartered?",
      "What was the main revenue in 2019?",
    ]) {
      expect(readTableQuestion(q).asksForProse, q).toBe(false);
    }
  });

  it("reads reasons and make-up as prose whatever period the question names, definitions and conditions when it names none", () => {
    for (const q of [
      "In 2019, why did the gross margin decrease?",
      "What caused the increase in interest expense in 2019?",
      "What led to the decrease in other income in 2018?",
      "What was the reason for the unrealized losses in 2018?",
      "What was the reclassification and others in 2019 primarily due to?",
      "What was the increase in free cash flow from 2018 to 2019 driven by?",
      "What does Cost of professional service and other revenues consists primarily of?",
      "What are Total segment assets composed of?",
      "What is included in Service delivery costs?",
      "What did total lease liabilities as of 2020 exclude?",
      "What were the investments disposed in 2019 mainly engaged in?",
      "What is Goodwill?",
      "When is Goodwill considered impaired?",
      "How is the Group's revenue diversified?",
      "Were there any impairment charges?",
    ]) {
      expect(readTableQuestion(q).asksForProse, q).toBe(true);
    }
    for (const q of [
      "What is the total revenue?",
      "What is Total revenue in 2019?",
      "When did the Board approve the plan?",
      "How is the revenue in 2019 split?",
      "How much did revenue increase in 2019?",
      "What was the change in interest expense in 2019?",
      "What was the gross margin in 2018?",
    ]) {
      expect(readTableQuestion(q).asksForProse, q).toBe(false);
    }
  });

  it("reads the reasons a question asks for", () => {
    expect(asksForReason("In 2018, why did the gross margin improve?")).toBe(true);
    expect(asksForReason("What factors drove the hotels sales improvement?")).toBe(true);
    expect(asksForReason("What is the increase in prepared chicken inventory due to?")).toBe(true);
    expect(asksForReason("What was the increase in interest expense in 2019?")).toBe(false);
  });

  it("still lists a group's line items when the question reads 'what items does X consist of'", () => {
    const q = "What financial items does total amount charged to income statement consist of?";
    expect(readTableQuestion(q).asksForProse).toBe(true);
    expect(answer(q).values).toEqual(["Defined contribution schemes", "Defined benefit schemes"]);
    // The whole answer stage reads the table for it, though the question reads as prose.
    expect(answerQuestion({ intent: intent(q, { wh: "what", answerTypes: ["entity", "text"] }), evidence: pension }).answer.text).toBe(
      "Defined contribution schemes and Defined benefit schemes",
    );
  });
});

describe("cells located by row label and column header", () => {
  it("adds up a total row over the periods when the question's own 'total' spans them, and reads a quoted 'Total' label per period", () => {
    const COLS = ["Item", "December 31, 2019", "December 31, 2018"];
    const rows = [
      docRow(KB.docs, "other-assets", "Other non-current assets (in thousands)", "", COLS, ["Deposits", "2,338", "1,975"], 0, "q"),
      docRow(
        KB.docs,
        "other-assets",
        "Other non-current assets (in thousands)",
        "",
        COLS,
        ["Total other non-current assets", "41,846", "$8,620"],
        1,
        "q",
      ),
    ];
    const evidence = [scored(rows[1], 9), scored(rows[0], 8)];
    expect(answer("What is the total value of other non-current assets between 2018 to 2019?", evidence).text).toBe("$50,466 thousand");
    expect(answer("What is the total other non-current assets for 2019 and 2018?", evidence).text).toBe("$50,466 thousand");
    expect(answer("What was the Total other non-current assets in 2019 and 2018?", evidence).values).toEqual([
      "41,846 thousand",
      "$8,620 thousand",
    ]);
  });

  it("lists every year a 'respectively' question's range names, whichever way it runs", () => {
    expect(readTableQuestion("What is the earnings per share for fiscal years 2019 to 2017 respectively?").spansRange).toBe(true);
    expect(answer("What were the defined benefit schemes for fiscal years 2019 to 2017 respectively?").values).toEqual([
      "57 million",
      "44 million",
      "20 million",
    ]);
  });

  it("reads a 'Total' row as the whole its caption names", () => {
    const included = [
      docRow(
        KB.docs,
        "segments",
        "Operating income included the following",
        "",
        ["Item", "2019", "Fiscal 2018 (in millions)"],
        ["Restructuring charges", "30", "22"],
        0,
        "q",
      ),
      docRow(
        KB.docs,
        "segments",
        "Operating income included the following",
        "",
        ["Item", "2019", "Fiscal 2018 (in millions)"],
        ["Total", "$ 302", "$ 148"],
        1,
        "q",
      ),
    ];
    const COLS = ["(In millions)", "2019", "2018", "Percentage Change 2019 Versus 2018"];
    const nonGaap = [docRow(KB.docs, "non-gaap", "Non-GAAP measures", "", COLS, ["Operating income", "42,959", "35,058", "23%"], 0, "q")];
    const evidence = [scored(included[1], 9), scored(nonGaap[0], 8), scored(included[0], 7)];
    expect(answer("What was the change in Total operating income in 2019 from 2018?", evidence).text).toBe("$154 million");
  });

  it("reads a period's figure from that period's own column, not from one comparing two periods", () => {
    const COLS = ["(In millions)", "2019", "2018", "Percentage Change 2019 Versus 2018"];
    const nonGaap = [docRow(KB.docs, "non-gaap", "Non-GAAP measures", "", COLS, ["Operating income", "42,959", "35,058", "23%"], 0, "q")];
    // "2019 Versus 2018" compares the two periods: the 2019 figure is in the 2019 column.
    expect(
      answer("What was the percentage change in operating income in 2019 from 2018?", [scored(nonGaap[0], 9)]).derivation?.operands.map(
        (o) => o.value,
      ),
    ).toEqual([42959, 35058]);
  });

  it("reads a row through the header above its label column, its parenthesised qualifier aside", () => {
    const hedges = [
      docRow(
        KB.docs,
        "hedges",
        "3.1 Financial risk factors",
        "",
        ["Interest rate swaps", "2019 RMB'Million", "2018 RMB'Million"],
        ["Carrying amount (non-current (liabilities)/assets)", "(494)", "1,663"],
        0,
        "q",
      ),
      docRow(
        KB.docs,
        "hedges",
        "3.1 Financial risk factors",
        "",
        ["Interest rate swaps", "2019 RMB'Million", "2018 RMB'Million"],
        ["Notional amount", "29,423", "77,630"],
        1,
        "q",
      ),
    ];
    // Another report's row is labelled with the instrument alone, and ranks higher.
    const other = docRow(
      KB.docs,
      "derivatives",
      "Derivative liabilities (in thousands)",
      "",
      ["Derivative liabilities", "2019", "2018"],
      ["Interest rate swaps", "49,891", "9,196"],
      0,
      "q",
    );
    const evidence = [scored(other, 9), scored(hedges[0], 8), scored(hedges[1], 7)];
    expect(answer("What is the 2019 carrying amount of interest rate swaps?", evidence).text).toBe("(494) million");
    expect(answer("What is the 2018 carrying amount of interest rate swaps?", evidence).text).toBe("1,663 million");
  });

  it("rebuilds the table and its scale from the rows and the header", () => {
    const [table] = tablesInEvidence(pension);
    expect(table.rows.map((r) => r.label)).toEqual([
      "Defined contribution schemes",
      "Defined benefit schemes",
      "Total amount charged to income statement (note 23)",
    ]);
    expect(table.columns.map((c) => c.periods[0]?.year ?? null)).toEqual([null, 2019, 2018, 2017]);
    expect(table.scale?.scale).toBe("million");
  });

  it("takes the scale from a passage of the same document when the table states none", () => {
    expect(tablesInEvidence(leases)[0].scale?.scale).toBe("thousand");
  });

  it("answers a cell with its scale, tolerant of the label's wording", () => {
    expect(answer("What was the defined benefit scheme cost in 2018?").text).toBe("44 million");
    expect(answer("What were the operating lease liabilities at December 31, 2019?", leases).text).toBe("$1,949 thousand");
  });

  it("answers one cell per period named as a list", () => {
    const a = answer("What were the defined contribution schemes in 2019 and 2018?");
    expect(a.kind).toBe("list");
    expect(a.values).toEqual(["166 million", "178 million"]);
  });

  it("computes a change ratio over the periods named, later period first, with its derivation", () => {
    const a = answer("What was the percentage change in defined benefit schemes from 2018 to 2019?");
    expect(a.text).toBe("29.55%");
    expect(a.derivation).toMatchObject({
      operation: "change-ratio",
      result: 29.55,
      scale: "percent",
      expression: "(57 − 44) / 44 × 100 = 29.55%",
    });
    expect(a.derivation?.operands.map((o) => [o.row, o.column, o.evidenceId])).toEqual([
      ["Defined benefit schemes", "2019 €m", benefit.id],
      ["Defined benefit schemes", "2018 €m", benefit.id],
    ]);
  });

  it("reads 'the 2019 average' as the average of the year's opening and closing figures", () => {
    expect(answer("What is the 2019 average defined contribution schemes?").derivation?.expression).toBe("(178 + 166) / 2 = 172 million");
  });

  it("averages every year of a range", () => {
    expect(answer("What was the average defined benefit schemes from 2017 to 2019?").text).toBe("40.33 million");
  });

  it("combines two line items of one period", () => {
    const a = answer("What is the difference between defined contribution schemes and defined benefit schemes in 2019?");
    expect(a.derivation?.expression).toBe("166 − 57 = 109 million");
    const share = answer("What percentage of the total amount charged were defined benefit schemes in 2019?");
    expect(share.derivation).toMatchObject({ operation: "division", expression: "57 / 223 × 100 = 25.56%" });
  });

  it("answers which period had the extreme figure", () => {
    expect(answer("In which year were defined benefit schemes the highest?").text).toBe("2019");
    expect(answer("In which year were defined contribution schemes lower than 170?").text).toBe("2019");
  });

  it("treats a dash as zero and refuses an operation whose operand is missing, naming it", () => {
    expect(answer("What was the change in finance lease liabilities from 2018 to 2019?", leases).text).toBe("-120 thousand");
    const out = answerFromTables("What was the change in sublease income from 2018 to 2019?", leases);
    expect(out && "problem" in out ? out.problem.problem : null).toBe(
      "The difference of 'Sublease income' cannot be computed: the evidence has no figure for 2018.",
    );
    const zero = answerFromTables("What was the percentage change in finance lease liabilities from 2018 to 2019?", [
      scored(leaseRows[1], 9),
      scored(leaseProse, 6),
    ]);
    expect(zero && "answer" in zero ? zero.answer.text : null).toBe("-100%");
    const fromZero = answerFromTables("What was the percentage change in finance lease liabilities from 2019 to 2020?", [
      scored(docRow(KB.docs, LEASES, "Leases", "", ["Item", "2020", "2019"], ["Finance lease liabilities", "120", "—"], 1, "q"), 9),
    ]);
    expect(fromZero && "problem" in fromZero ? fromZero.problem.problem : null).toBe(
      "The percentage change of 'Finance lease liabilities' cannot be computed: the change cannot be a percentage of zero (2019 is 0).",
    );
  });

  it("answers questions about the table itself: its periods and its items", () => {
    expect(answer("Which years does the table provide information for post employment benefits?").values).toEqual(["2019", "2018", "2017"]);
    expect(answer("What financial items are listed in the table?").values).toEqual([
      "Defined contribution schemes",
      "Defined benefit schemes",
    ]);
  });

  it("does not read a change column for a period the table does not have", () => {
    const regions = docRow(
      KB.docs,
      "annual",
      "Results by region",
      "",
      ["Region", "Revenue 2024", "Revenue 2025", "Growth"],
      ["Total", "43.0", "48.2", "12%"],
      0,
      "q",
    );
    const out = answerFromTables("What is the revenue growth for 2026?", [scored(regions, 9)]);
    expect(out && "answer" in out ? out.answer.text : null).not.toBe("12%");
  });

  it("leaves prose questions and unrelated tables alone", () => {
    expect(answerFromTables("Why did defined benefit schemes increase in 2019?", pension)).toBeNull();
    expect(answerFromTables("Who audits the pension plan?", pension)).toBeNull();
  });
});

describe("questions that name no row or no period", () => {
  const COLS = ["Region", "Revenue 2024 (EUR million)", "Revenue 2025 (EUR million)", "Growth"];
  const regions = [
    ["Nordics", "24.1", "26.3", "9%"],
    ["United Kingdom", "7.9", "8.3", "5%"],
    ["Total", "43.0", "48.2", "12%"],
  ].map((v, i) => docRow(KB.docs, "annual", "Results by region", "", COLS, v, i, "q"));
  const ev = regions.map((r, i) => scored(r, 9 - i));

  it("answers a change with the table's own change column, in the year asked or without one", () => {
    expect(answer("How much did the United Kingdom grow?", ev).text).toBe("5%");
    expect(answer("By how much did revenue grow in 2025?", ev).text).toBe("12%");
  });

  it("reads the Total row for a figure of the whole table, with the scale and currency the header states", () => {
    expect(answer("What was revenue in 2024?", ev).text).toBe("43.0 million EUR");
  });

  it("computes a change against the period before the one asked when no change column exists", () => {
    const rows = regions.map((r) =>
      docRow(KB.docs, "annual", "Results by region", "", COLS.slice(0, 3), (r.data as { values: string[] }).values.slice(0, 3), 0, "q"),
    );
    expect(answer("What was the change in Nordics revenue in 2025?", [scored(rows[0], 9)]).derivation?.expression).toBe(
      "26.3 − 24.1 = 2.2 million",
    );
  });
});

describe("coordinated items: 'the respective A and B'", () => {
  it("reads the two items a question coordinates, leaving pairs of periods and long clauses out", () => {
    expect(coordinatedItems("What are the respective sales and purchases for 2018?")).toEqual([["sales", "purchases"]]);
    expect(
      coordinatedItems("What were the balances of Application Software and Process Technologies on December 31, 2017, respectively?"),
    ).toEqual([["Application Software", "Process Technologies"]]);
    expect(
      coordinatedItems("What are the respective values of operating lease obligations that are less than one year and between 2-5 years?"),
    ).toEqual([["less than one year", "between 2-5 years"]]);
    expect(coordinatedItems("What was the net deferred tax asset amount in 2019 and 2018 respectively?")).toEqual([]);
    expect(coordinatedItems("What was the revenue in FY2019 and FY2018?")).toEqual([]);
  });

  const RCOLS = ["Item", "2019", "2018"];
  const related = [
    ["Sales", "10,436", "26,069"],
    ["Purchases", "9,399", "256,660"],
    ["Research and development", "1,200", "1,100"],
    ["Research grants", "300", "250"],
    ["Development costs", "75", "80"],
  ].map((v, i) => scored(docRow(KB.docs, "related", "Related party transactions", "", RCOLS, v, i, "q"), 9 - i));

  it("answers each item from its own row, in the question's order", () => {
    const a = answer("What are the respective sales and purchases for 2018?", related);
    expect(a.kind).toBe("list");
    expect(a.values).toEqual(["26,069", "256,660"]);
    expect(answer("What were the purchases and sales in 2019, respectively?", related).values).toEqual(["9,399", "10,436"]);
  });

  it("answers one figure when the question asks for one in the singular", () => {
    expect(answer("What was the figure of sales and purchases in 2018?", related).kind).not.toBe("list");
  });

  it("keeps a label that holds both items as one row", () => {
    const a = answer("What was the research and development expense in 2019?", related);
    expect(a.kind).toBe("cell");
    expect(a.text).toBe("1,200");
  });

  it("answers each item from its own column when both name columns of one row", () => {
    const COLS = ["Contractual obligations", "Total", "Less than 1 year", "2-5 years", "More than 5 years"];
    const rows = [
      ["Operating lease obligations", "$3,052", "$773", "$2,055", "$224"],
      ["Purchase obligations", "$1,200", "$900", "$300", "—"],
    ].map((v, i) => scored(docRow(KB.docs, "obligations", "Contractual obligations", "", COLS, v, i, "q"), 9 - i));
    const a = answer(
      "What are the respective values of operating lease obligations that are less than one year and between 2-5 years?",
      rows,
    );
    expect(a.values).toEqual(["$773", "$2,055"]);
  });
});

describe("counting a group's line items", () => {
  const COLS = ["Item", "2019", "2018"];
  const values = [
    ["Deferred tax assets:", "", ""],
    ["Net operating losses", "1,200", "1,100"],
    ["Accrued liabilities", "300", "250"],
    ["Stock compensation", "75", "80"],
    ["Inventory", "40", "35"],
    ["Total deferred tax assets", "1,615", "1,465"],
    ["Deferred tax liabilities:", "", ""],
    ["Depreciation", "(500)", "(450)"],
    ["Intangible assets", "(90)", "(60)"],
  ];
  const rows = values.map((v, i) => scored(docRow(KB.docs, "taxes", "Deferred taxes", "", COLS, v, i, "q"), 9 - i * 0.1));

  it("counts the rows under a heading or making up a total", () => {
    expect(answer("How many components are there under deferred tax assets?", rows).text).toBe("4");
    expect(answer("How many categories are there under total deferred tax assets?", rows).text).toBe("4");
  });

  it("lists the line items of a group, a total found by its sum when its label does not say so", () => {
    expect(answer("What are the components of deferred tax liabilities?", rows).values).toEqual(["Depreciation", "Intangible assets"]);
    expect(answer("What types of deferred tax assets are there?", rows).values).toEqual([
      "Net operating losses",
      "Accrued liabilities",
      "Stock compensation",
      "Inventory",
    ]);
    const ppe = [
      ["Land", "100", "100"],
      ["Buildings", "400", "380"],
      ["Machinery and equipment", "250", "240"],
      ["Property, plant and equipment, gross", "750", "720"],
      ["Accumulated depreciation", "(300)", "(280)"],
    ].map((v, i) => scored(docRow(KB.docs, "ppe", "Property", "", COLS, v, i, "q"), 9 - i * 0.1));
    expect(answer("What were the components under Property, plant and equipment, gross?", ppe).values).toEqual([
      "Land",
      "Buildings",
      "Machinery and equipment",
    ]);
    // Not a total: the rows above do not add up to it.
    const out = answerFromTables("What were the components under accumulated depreciation?", ppe);
    expect(out && "answer" in out ? out.answer.kind : null).not.toBe("list");
  });

  it("does not count a group one of whose rows is missing from the evidence", () => {
    const gap = rows.filter((_, i) => i !== 3);
    const out = answerFromTables("How many components are there under deferred tax assets?", gap);
    expect(out && "answer" in out ? out.answer.kind : null).not.toBe("count");
  });
});
