import type { Constructs } from "../../../contracts";
import { namesTable } from "./column-choice";
import type { PickContext, SchemaLinking } from "./types";

/** The FROM side of SQL formulation beyond the columns' own tables: tables joined so that a related row must exist. */

// ---------------------------------------------------------------------------------------------
// Existence: "any", "some", "at least one"

/** Tables the question says the answer rows have some of (constructs.existence, read by understand), the root aside. */
function existenceTables(linking: SchemaLinking, reach: Set<string>, constructs: Constructs): string[] {
  const out: string[] = [];
  for (const { text } of constructs.existence) {
    const words = text.split(/\s+/);
    const table = [...reach].find((t) => t !== linking.root && (namesTable(linking, t, text) || namesTable(linking, t, words[0])));
    if (table) out.push(table);
  }
  return out;
}

/** "dogs that went through any treatments": rows that have at least one related row, through a join. */
export function pickExistence(ctx: PickContext, extraTables: string[]): void {
  for (const t of existenceTables(ctx.linking, ctx.reach, ctx.constructs)) {
    if (!extraTables.includes(t)) extraTables.push(t);
    ctx.notes.push(`"any ${t}": only rows with at least one ${t} row`);
  }
}
