import type { KbStructure } from "../../../backends/types";
import type { TextEmbeddings } from "../../../models/text-embeddings";
import type { CrossEncoder, Embedder } from "../../../models/types";
import type { Candidate, Intent } from "../../contracts";
import { graphView } from "./graph/graph-view";
import { rdfView } from "./graph/rdf-view";
import { columnMeaning } from "./sql/column-meaning";
import { learnedColumnMeaning } from "./sql/learned-column-meaning";
import { nounTables } from "./noun-tables";
import type { LinkingCandidate } from "./sql/types";
import type { SqlStructure } from "./sql/sql-structure";

/**
 * Column-level dense linking for every formulator that links a schema: SQL on its tables, Cypher and
 * SPARQL on the graph seen as tables (graph-view.ts, rdf-view.ts), whose table and column names are
 * the ones schema linking scores. The learned question–schema scorer decides where it runs (sql/
 * learned-column-meaning.ts); the embedder's closeness (sql/column-meaning.ts) where it does not, or
 * fails, or the schema is too large to score per question. Without an embedder, or when both fail,
 * the candidate goes on as it came and linking is by words alone.
 */

export type FormulationCandidate = Candidate & Pick<LinkingCandidate, "columnMeaning" | "nounTables">;

/**
 * The tables schema linking sees for a KB: its own, or its graph's relational view; null for documents.
 * `tableOf` names a source object's table there (an RDF class is a table named by its label, not its IRI).
 */
export function linkedTables(structure: KbStructure | null): { tables: SqlStructure; tableOf: (key: string) => string } | null {
  switch (structure?.kind) {
    case "sql":
      return { tables: structure, tableOf: (key) => key };
    case "graph":
      return { tables: graphView(structure).structure, tableOf: (key) => key };
    case "rdf": {
      const view = rdfView(structure);
      return { tables: view.structure, tableOf: (key) => view.byClass.get(key) ?? key };
    }
    default:
      return null;
  }
}

/** Source selection's closeness of each source object, keyed by the table schema linking sees it as. */
function tableMeaning(meaning: Candidate["meaning"], tableOf: (key: string) => string): Candidate["meaning"] {
  return meaning ? Object.fromEntries(Object.entries(meaning).map(([key, score]) => [tableOf(key), score])) : meaning;
}

export async function withColumnMeaning(
  models: { embedder: Embedder; texts: TextEmbeddings; linker?: CrossEncoder | null } | null,
  intent: Intent,
  candidate: Candidate,
  structure: KbStructure | null,
  signal?: AbortSignal,
): Promise<{ candidate: FormulationCandidate; notes: string[] }> {
  const linked = models ? linkedTables(structure) : null;
  if (!models || !linked || linked.tables.tables.length === 0) return { candidate, notes: [] };
  const notes: string[] = [];
  const withTables: FormulationCandidate = {
    ...candidate,
    meaning: tableMeaning(candidate.meaning, linked.tableOf),
    nounTables: await nounTables(models, intent, linked.tables, signal).catch((e: Error) => {
      if (signal?.aborted) throw e;
      notes.push(`${candidate.kbName}: count nouns were matched to tables by their words only (the embedding model failed: ${e.message}).`);
      return {};
    }),
  };
  if (models.linker) {
    try {
      const learned = await learnedColumnMeaning(models.linker, intent, linked.tables, signal);
      if (learned) return { candidate: { ...withTables, columnMeaning: learned }, notes };
    } catch (e) {
      if (signal?.aborted) throw e;
      notes.push(
        `${candidate.kbName}: the schema linker failed (${(e as Error).message}); columns were matched by the embedder's closeness.`,
      );
    }
  }
  try {
    const { meaning, pending } = await columnMeaning(models.embedder, models.texts, intent, linked.tables, signal);
    if (pending)
      notes.push(
        `${candidate.kbName}: ${pending.toLocaleString("en")} column names are still being prepared for matching by meaning; columns count by their words only until then.`,
      );
    return { candidate: { ...withTables, columnMeaning: meaning }, notes };
  } catch (e) {
    if (signal?.aborted) throw e;
    return {
      candidate: withTables,
      notes: [
        ...notes,
        `${candidate.kbName}: columns were matched by their words only (the embedding model failed: ${(e as Error).message}).`,
      ],
    };
  }
}
