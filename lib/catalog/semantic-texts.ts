import { identifierWords } from "../backends/sql/values";
import lexicon from "../data/identifier-abbreviations.json";
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
 * Short forms in identifiers read out ("fname" → "first name"): derived from the Spider training
 * databases, where each column's identifier stands beside the words its annotators gave it
 * (training/schema_linking/abbreviations.py keeps a reading seen on two columns of two databases or
 * more). The schema linker was trained on texts read this way, so the texts it is given must be too
 * (linkerColumnText); the embedder's column texts keep the identifiers' own words.
 */
const ABBREVIATIONS: Readonly<Record<string, string>> = lexicon.abbreviations;

/** An identifier in lower-case words, each known short form read out. */
export function readableIdentifier(name: string): string {
  return identifierWords(name)
    .toLowerCase()
    .split(" ")
    .map((w) => ABBREVIATIONS[w] ?? w)
    .join(" ");
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

/** A column as the schema linker reads it ("fname" of "Emp" → "first name of emp"): its training texts (training/schema_linking/schema_text.py). */
export function linkerColumnText(table: string, column: string): string {
  return `${readableIdentifier(column)} of ${readableIdentifier(table)}`;
}

/** The column names a table source object's metadata lists (as the last refresh read them); [] when it lists none. */
export function tableColumns(metadata: unknown): string[] {
  const columns = (metadata as { columns?: unknown } | null)?.columns;
  return Array.isArray(columns) ? columns.filter((c): c is string => typeof c === "string") : [];
}
