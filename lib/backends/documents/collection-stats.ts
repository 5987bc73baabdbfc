import { capitalizedSpans } from "./entity-spans";
import { type IndexDb, readMeta } from "./index-db";
import { isStopword } from "./stopwords";

export interface CollectionCounts {
  documents: number;
  failedDocuments: number;
  chunks: number;
  tables: number;
  tableRows: number;
}

export interface TermStat {
  term: string;
  /** Number of documents containing it. */
  df: number;
}

export interface PhraseStat extends TermStat {
  /** A document where it occurs (for the entity index's ref). */
  documentId: string;
}

export interface ContentStats {
  contentVersion: string;
  terms: TermStat[];
  phrases: PhraseStat[];
}

export function collectionCounts(db: IndexDb): CollectionCounts {
  const one = (sql: string) => Number(db.prepare(sql).pluck().get() ?? 0);
  return {
    documents: one("SELECT count(*) FROM documents WHERE status = 'ready'"),
    failedDocuments: one("SELECT count(*) FROM documents WHERE status = 'failed'"),
    chunks: one("SELECT count(*) FROM chunks"),
    tables: one("SELECT count(*) FROM doc_tables"),
    tableRows: one("SELECT coalesce(sum(row_count), 0) FROM doc_tables"),
  };
}

const TERM = /\p{L}[\p{L}\p{N}'’-]*\p{L}|\p{L}{2}/gu;

function topByDf<T extends TermStat>(counts: Map<string, T>, documents: number, limit: number): T[] {
  // In small collections a term seen once is still informative; in large ones it is noise.
  const minDf = documents >= 10 ? 2 : 1;
  // Words in more than half the documents ("study", "results") describe nothing in particular.
  const maxDf = documents >= 10 ? Math.ceil(documents / 2) : documents;
  return [...counts.values()]
    .filter((s) => s.df >= minDf && s.df <= maxDf)
    .sort((a, b) => b.df - a.df || a.term.localeCompare(b.term))
    .slice(0, limit);
}

/** What the statistics read of one ready document: its prose and its tables' captions and headers. */
export interface StatsDocument {
  id: string;
  title: string;
  text: string;
  tables: { caption: string; header: string[] }[];
}

/**
 * Document frequencies of content words and of capitalized phrases, from titles, text, table captions
 * and headers. One pass over the collection: cached by the caller per content version.
 */
export function computeContentStats(db: IndexDb, language: string, limits = { terms: 60, phrases: 400 }): ContentStats {
  const tablesOf = db.prepare("SELECT caption, header FROM doc_tables WHERE document_id = ?");
  function* documents(): Iterable<StatsDocument> {
    for (const doc of db.prepare("SELECT id, title, text FROM documents WHERE status = 'ready' ORDER BY rowid").iterate() as Iterable<{
      id: string;
      title: string;
      text: string;
    }>) {
      const tables = (tablesOf.all(doc.id) as { caption: string; header: string }[]).map((t) => ({
        caption: t.caption,
        header: JSON.parse(t.header) as string[],
      }));
      yield { ...doc, tables };
    }
  }
  return contentStatsOf(documents(), language, readMeta(db, "content_version") ?? "0", limits);
}

/** The statistics of any engine's collection, from its ready documents in ingestion order. */
export function contentStatsOf(
  docs: Iterable<StatsDocument>,
  language: string,
  contentVersion: string,
  limits = { terms: 60, phrases: 400 },
): ContentStats {
  const termDf = new Map<string, TermStat>();
  const phraseDf = new Map<string, PhraseStat>();
  let documents = 0;
  for (const doc of docs) {
    documents++;
    const tableText = doc.tables.map((t) => `${t.caption}. ${t.header.join(", ")}.`).join(" ");
    const prose = `${doc.title}. ${doc.text}`;
    const terms = new Set(
      `${prose} ${tableText}`
        .toLowerCase()
        .match(TERM)
        ?.filter((t) => t.length >= 3 && !isStopword(t, language)),
    );
    for (const term of terms) {
      const s = termDf.get(term);
      if (s) s.df++;
      else termDf.set(term, { term, df: 1 });
    }
    // Phrases from prose only: table headers are capitalized labels, already indexed as columns.
    for (const phrase of new Set(capitalizedSpans(prose, language, 200))) {
      const s = phraseDf.get(phrase);
      if (s) s.df++;
      else phraseDf.set(phrase, { term: phrase, df: 1, documentId: doc.id });
    }
  }
  return { contentVersion, terms: topByDf(termDf, documents, limits.terms), phrases: topByDf(phraseDf, documents, limits.phrases) };
}
