import type { EvidencePiece } from "../../backends/types";
import { normalizeLabel, terms } from "../text";

/**
 * Identifiers in schemas and evidence are written as code ("Song_release_year", "releaseYear"): split
 * camelCase so a question's "release year" meets them. The shared tokenizer already turns underscores
 * and punctuation into spaces.
 */
export function identifierWords(text: string): string {
  return text.replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2").replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2");
}

/** What lexical scorers index for a piece: its linearized text with identifiers split. */
export function pieceSearchText(piece: EvidencePiece): string {
  return identifierWords(piece.text);
}

/** A piece prepared for phrase and term lookups; computed once per piece object and shared by all scorers and rounds. */
export interface PreparedPiece {
  piece: EvidencePiece;
  /** " normalized text " padded with spaces, so phrase containment is a substring test on word boundaries. */
  padded: string;
  entities: Set<string>;
  /** Stemmed content terms of the text and the entity names (computed on first use: stemming is the costly part). */
  readonly terms: Set<string>;
  /** The text's terms in order, repeats kept: the BM25 document of the piece (pool and re-rank share it). */
  readonly tokens: string[];
  /** KB references the piece is about: IRIs of a triple, node ids of a path, the document id. */
  refs: Set<string>;
}

function refsOf(piece: EvidencePiece): string[] {
  const d = piece.data as unknown as Record<string, unknown>;
  if (piece.kind === "triple" && d.subject && d.object) {
    return [(d.subject as { value: string }).value, (d.object as { value: string }).value];
  }
  if (piece.kind === "path" && Array.isArray(d.nodes)) return (d.nodes as { id: string }[]).map((n) => n.id);
  if (piece.kind === "passage" && typeof d.documentId === "string") return [d.documentId];
  return [];
}

// Pieces are not mutated after verbalization, so what is derived from one can be kept with it.
const prepared = new WeakMap<EvidencePiece, PreparedPiece>();

export function preparePiece(piece: EvidencePiece): PreparedPiece {
  const cached = prepared.get(piece);
  if (cached) return cached;
  const text = pieceSearchText(piece);
  let termSet: Set<string> | null = null;
  let tokens: string[] | null = null;
  const result: PreparedPiece = {
    piece,
    padded: ` ${normalizeLabel(text)} `,
    entities: new Set(piece.entities.map((e) => normalizeLabel(e)).filter(Boolean)),
    get terms() {
      termSet ??= new Set([...terms(text), ...piece.entities.flatMap((e) => terms(identifierWords(e)))]);
      return termSet;
    },
    get tokens() {
      tokens ??= terms(text);
      return tokens;
    },
    refs: new Set(refsOf(piece)),
  };
  prepared.set(piece, result);
  return result;
}

/** Whole-phrase occurrence of an already normalized phrase in the piece's text or entity names. */
export function containsPhrase(prepared: PreparedPiece, normalizedPhrase: string): boolean {
  if (!normalizedPhrase) return false;
  return prepared.entities.has(normalizedPhrase) || prepared.padded.includes(` ${normalizedPhrase} `);
}

/** The piece's BM25 document (`terms(pieceSearchText(piece))`), tokenized once per piece. */
export function pieceTokens(piece: EvidencePiece): string[] {
  return preparePiece(piece).tokens;
}
