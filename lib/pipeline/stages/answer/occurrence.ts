import type { ValueType } from "./value-types";

/**
 * One appearance of a possible answer in one evidence piece. Extractors (rows, triples, paths,
 * passages) produce occurrences; scoring groups them by `key` into candidates.
 */
export interface Occurrence {
  /** How the value reads in this piece ("60 days", "Maria Lindqvist", "April 2025"). */
  display: string;
  /** Identity across pieces (see value-key.ts). */
  key: string;
  type: ValueType;
  /** Index of the piece in the stage's evidence list (best first). */
  pieceIndex: number;
  /**
   * 0..1: how squarely the piece points at this value for this question (the column asked about, the
   * object of the asked-about relation, the sentence with the most question terms). 1 = exactly it.
   */
  weight: number;
  /** Where in its source the value sits (KB + query + column, predicate, relationship, document): list answers gather one slot's values. */
  slot: string;
  /** The piece mentions nothing the question is about besides the asked column (extract-rows.ts): it cannot contradict a value that does. */
  offSubject?: boolean;
}
