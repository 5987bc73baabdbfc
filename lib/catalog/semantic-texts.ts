import { identifierWords } from "../backends/sql/values";
import type { CatalogEntry, CatalogSourceObject } from "./snapshot";

/**
 * The catalog as words for the sentence embedder: the catalog embedding job stores these texts' vectors
 * and source selection and query formulation compare questions with them, so all build them here.
 */

export function kbSemanticText(entry: CatalogEntry): string {
  return [entry.kbName, entry.description, entry.descriptor].filter(Boolean).join(". ");
}

export function objectSemanticText(object: CatalogSourceObject): string {
  return [object.name, object.description, object.tags.join(", ")].filter(Boolean).join(". ");
}

/**
 * A column as words for the sentence embedder ("Song_release_year" of "singer" → "song release year of
 * singer"): the table's words give the column its subject; a catalog description follows when one exists.
 * The catalog job and query formulation both build it here, so both compute the same text (and vector).
 */
export function columnSemanticText(table: string, column: string, description?: string): string {
  const text = `${identifierWords(column)} of ${identifierWords(table)}`.toLowerCase();
  return description ? `${text}. ${description}` : text;
}
