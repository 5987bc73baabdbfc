import { terms } from "./text";

/**
 * Okapi BM25 over an in-memory set of documents (Quasar's global pool, the catalog for source
 * selection, guide questions). The engine-side BM25 of document collections is FTS5's own; this one
 * ranks texts that come from different engines in one list.
 */
export interface Bm25Options {
  k1?: number;
  b?: number;
  language?: string;
}

export class Bm25Index {
  private readonly docs: Map<string, number>[] = [];
  private readonly lengths: number[] = [];
  private readonly df = new Map<string, number>();
  private avgdl = 0;
  private readonly k1: number;
  private readonly b: number;
  private readonly language: string;

  /** `texts` are tokenized here; a string[] entry is a document already tokenized with `terms` (cached by the caller). */
  constructor(texts: (string | string[])[], opts: Bm25Options = {}) {
    this.k1 = opts.k1 ?? 1.2;
    this.b = opts.b ?? 0.75;
    this.language = opts.language ?? "en";
    let total = 0;
    for (const text of texts) {
      const tf = new Map<string, number>();
      const ts = typeof text === "string" ? terms(text, this.language) : text;
      for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      this.docs.push(tf);
      this.lengths.push(ts.length);
      total += ts.length;
    }
    this.avgdl = texts.length ? total / texts.length : 0;
  }

  get size(): number {
    return this.docs.length;
  }

  /** Robertson–Spärck Jones idf, floored at a small positive value so very common terms never subtract. */
  idf(term: string): number {
    const n = this.docs.length;
    const df = this.df.get(term) ?? 0;
    return Math.max(0.01, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }

  /** Score of every document for the query (same order as the texts given). */
  scores(query: string): number[] {
    const qterms = [...new Set(terms(query, this.language))];
    return this.docs.map((tf, i) => {
      let s = 0;
      const norm = this.lengthNorm(i);
      for (const q of qterms) {
        const f = tf.get(q);
        if (f) s += this.termWeight(q, f, norm);
      }
      return s;
    });
  }

  /**
   * A document's score for its own text as the query: the highest a query made of its words can reach,
   * which relative scores divide by. Equal to `scores(text)[i]`, without scoring every other document.
   */
  selfScore(docIndex: number): number {
    const tf = this.docs[docIndex];
    if (!tf) return 0;
    const norm = this.lengthNorm(docIndex);
    let s = 0;
    for (const [t, f] of tf) s += this.termWeight(t, f, norm);
    return s;
  }

  /** BM25's length normalisation of a document (k1 scaled by its length against the average). */
  private lengthNorm(docIndex: number): number {
    return this.k1 * (1 - this.b + (this.b * this.lengths[docIndex]) / (this.avgdl || 1));
  }

  /** One term's share of a document's score: idf times the saturated term frequency. */
  private termWeight(term: string, f: number, norm: number): number {
    return this.idf(term) * ((f * (this.k1 + 1)) / (f + norm));
  }

  /** The query terms a document matched (for "why was this selected" reasons). */
  matchedTerms(query: string, docIndex: number): string[] {
    const tf = this.docs[docIndex];
    return [...new Set(terms(query, this.language))].filter((q) => tf?.has(q));
  }

  /** Indexes of the top `k` documents with a positive score, best first. */
  top(query: string, k: number): { index: number; score: number }[] {
    return this.scores(query)
      .map((score, index) => ({ index, score }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, k);
  }
}
