import type { Constructs } from "../../../contracts";
import { namesTable } from "./column-choice";
import type { PickContext, SchemaLinking } from "./types";

/** The FROM side of SQL formulation beyond the columns' own tables: tables joined so that a related row must exist. */

// ---------------------------------------------------------------------------------------------
// Existence: "any", "some", "at least one"

const EXISTS = /\b(?:any|some|at\s+least\s+one)\s+([\p{L}_]+(?:\s+[\p{L}_]+)?)/giu;

/** Tables the question says the answer rows have some of ("went through any treatments"), outside the ask and not negated. */
function existenceTables(question: string, linking: SchemaLinking, reach: Set<string>, constructs: Constructs): string[] {
  const out: string[] = [];
  for (const m of question.matchAll(EXISTS)) {
    const at = m.index ?? 0;
    if (constructs.ask && at >= constructs.ask.start && at < constructs.ask.end) continue;
    if (/\b(?:no|not|without|never|n't)\s+(?:\w+\s+){0,2}$/i.test(question.slice(Math.max(0, at - 30), at))) continue;
    const words = m[1].split(/\s+/);
    const table = [...reach].find((t) => t !== linking.root && (namesTable(linking, t, m[1]) || namesTable(linking, t, words[0])));
    if (table) out.push(table);
  }
  return out;
}

/** "dogs that went through any treatments": rows that have at least one related row, through a join. */
export function pickExistence(ctx: PickContext, extraTables: string[]): void {
  for (const t of existenceTables(ctx.intent.completed, ctx.linking, ctx.reach, ctx.constructs)) {
    if (!extraTables.includes(t)) extraTables.push(t);
    ctx.notes.push(`"any ${t}": only rows with at least one ${t} row`);
  }
}
