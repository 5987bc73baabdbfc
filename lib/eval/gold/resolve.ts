import { openBackend, type KbRecord } from "../../backends/registry";
import type { RawResult } from "../../backends/types";
import type { CatalogDeps } from "../../deps";
import { tatQaAnswerText } from "../metrics/tatqa";
import type { EvalQuestion, ResolvedGold, ResultTable } from "../types";
import { tableAnswers } from "./answers";
import { GoldSqliteFiles } from "./sqlite-file";

/** Gold queries may read more than a pipeline query: the whole result is the answer. */
export const GOLD_MAX_ROWS = 10_000;
const GOLD_TIMEOUT_MS = 60_000;

export function rawToTable(raw: RawResult): ResultTable {
  return { columns: raw.columns, rows: raw.records.map((r) => raw.columns.map((c) => r[c])), truncated: raw.truncated };
}

/**
 * Computes each question's gold once per evaluation run: the result of its gold query (on the
 * benchmark file, or on the registered KB that the suite names, read-only through its backend), or the
 * accepted answers the suite lists. A gold that cannot be computed is recorded with the reason; the
 * question is then left out of the metrics that need it.
 */
export class GoldResolver {
  private readonly files = new GoldSqliteFiles(GOLD_MAX_ROWS);
  private readonly cache = new Map<string, Promise<ResolvedGold>>();

  constructor(
    private readonly deps: CatalogDeps,
    private readonly kbByName: Map<string, KbRecord>,
  ) {}

  resolve(q: EvalQuestion): Promise<ResolvedGold> {
    let p = this.cache.get(q.id);
    if (!p) {
      p = this.compute(q).catch((e: Error) => ({
        answers: [],
        presence: [],
        list: false,
        table: null,
        unanswerable: false,
        error: e.message,
      }));
      this.cache.set(q.id, p);
    }
    return p;
  }

  private async compute(q: EvalQuestion): Promise<ResolvedGold> {
    const g = q.gold;
    switch (g.type) {
      case "query": {
        const table = await this.runQuery(g);
        const a = tableAnswers(table);
        return { answers: a.items, presence: a.cells, list: a.list, table, unanswerable: false };
      }
      case "answers":
        return { answers: g.answers, presence: g.answers, list: !!g.list, table: null, unanswerable: false };
      case "tatqa": {
        const answers = tatQaAnswerText(g.tatqa);
        return { answers, presence: answers, list: g.tatqa.answerType === "multi-span", table: null, unanswerable: false };
      }
      case "retrieval-only":
        return { answers: [], presence: [], list: false, table: null, unanswerable: false };
      case "unanswerable":
        return { answers: [], presence: [], list: false, table: null, unanswerable: true };
    }
  }

  private async runQuery(g: Extract<EvalQuestion["gold"], { type: "query" }>): Promise<ResultTable> {
    if (g.target.type === "sqlite-file") {
      if (g.language !== "sql") throw new Error(`a ${g.language} gold query cannot run on a SQLite file`);
      return this.files.run(g.target.file, g.text);
    }
    const kb = this.kbByName.get(g.target.kbName);
    if (!kb) throw new Error(`the knowledge base "${g.target.kbName}" that holds the gold is not registered or not shared with you`);
    const raw = await openBackend(kb, this.deps).execute(
      { language: g.language, text: g.text },
      { maxRows: GOLD_MAX_ROWS, timeoutMs: GOLD_TIMEOUT_MS },
    );
    return rawToTable(raw);
  }

  close(): void {
    this.files.close();
  }
}
