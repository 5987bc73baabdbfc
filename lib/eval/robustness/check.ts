import { GoldSqliteFiles } from "../gold/sqlite-file";
import type { EvalQuestion } from "../types";
import type { RobustnessSet } from "./overlay";

/**
 * The check behind every other-values rewrite: its changed gold must answer something. A result with
 * no row, or only one row whose values are all 0 or NULL (a count or sum over nothing), says the values
 * were swapped for ones the data does not hold, so the item is not kept. A result equal to the dev
 * item's is reported too: the swap then tests nothing the dev item does not.
 */

export interface GoldCheck {
  id: string;
  problem: "empty" | "same-as-dev" | "error";
  detail: string;
}

/** Runs a gold query and returns its rows (the Cypher runner is given: the check does not start a Neo4j itself). */
export type GoldRunner = (q: EvalQuestion) => Promise<unknown[][]>;

function isEmpty(rows: unknown[][]): boolean {
  return rows.length === 0 || (rows.length === 1 && rows[0].every((v) => v === null || v === 0 || v === "0"));
}

function canonical(rows: unknown[][]): string {
  return JSON.stringify(rows.map((r) => JSON.stringify(r)).sort());
}

/** The other-values rewrites of a set whose gold is a query. */
export function changedGoldQuestions(set: RobustnessSet): { rewritten: EvalQuestion; dev: EvalQuestion }[] {
  const devById = new Map(set.dev.map((q) => [q.id, q]));
  return set.rewritten
    .filter((q) => q.tags?.includes("class:other-values") && q.gold.type === "query")
    .map((q) => ({ rewritten: q, dev: devById.get(set.pairs.get(q.id)!)! }));
}

/** Spider's gold runs on the dataset's SQLite files. */
export function sqliteGoldRunner(files = new GoldSqliteFiles()): GoldRunner & { close(): void } {
  const run = async (q: EvalQuestion) => {
    if (q.gold.type !== "query" || q.gold.target.type !== "sqlite-file") throw new Error(`${q.id}: the gold is not SQL on a dataset file`);
    return files.run(q.gold.target.file, q.gold.text).rows;
  };
  return Object.assign(run, { close: () => files.close() });
}

export async function checkChangedGold(set: RobustnessSet, run: GoldRunner): Promise<{ checked: number; problems: GoldCheck[] }> {
  const problems: GoldCheck[] = [];
  const items = changedGoldQuestions(set);
  for (const { rewritten, dev } of items) {
    let rows: unknown[][];
    try {
      rows = await run(rewritten);
    } catch (e) {
      problems.push({ id: rewritten.id, problem: "error", detail: (e as Error).message });
      continue;
    }
    if (isEmpty(rows)) {
      problems.push({
        id: rewritten.id,
        problem: "empty",
        detail: `the changed gold returns ${rows.length ? "only zeros or NULLs" : "no rows"}`,
      });
      continue;
    }
    const devRows = await run(dev).catch(() => null);
    if (devRows && canonical(devRows) === canonical(rows))
      problems.push({ id: rewritten.id, problem: "same-as-dev", detail: "the changed gold returns what the dev item's gold returns" });
  }
  return { checked: items.length, problems };
}

/** Every dev item of a query suite must have a gold that runs: a rewrite of an item without one can never be paired. */
export async function checkDevGold(set: RobustnessSet, run: GoldRunner): Promise<GoldCheck[]> {
  const problems: GoldCheck[] = [];
  for (const q of set.dev) {
    if (q.gold.type !== "query") continue;
    try {
      await run(q);
    } catch (e) {
      problems.push({
        id: q.id,
        problem: "error",
        detail: `the dev item's gold fails, so its rewrites cannot be paired: ${(e as Error).message.split("\n")[0]}`,
      });
    }
  }
  return problems;
}
