import type { Scalar } from "../../../backends/types";
import { checkJsonDepth } from "./limits";
import { DocumentParseError, type ParsedDocument, type ParsedTable, type TextBlock } from "./types";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isRecord(v: Json): v is { [key: string]: Json } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Nested values stay readable in one cell instead of being dropped. */
function cell(v: Json | undefined): Scalar {
  if (v === undefined) return null;
  if (v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
  return JSON.stringify(v);
}

/** An array becomes a table: objects give columns by key (first-seen order), scalars one column. */
function arrayToTable(items: Json[], caption: string, beforeBlock: number): ParsedTable | null {
  if (items.length === 0) return null;
  if (items.every(isRecord)) {
    const columns: string[] = [];
    const seen = new Set<string>();
    for (const item of items) {
      for (const key of Object.keys(item)) {
        if (!seen.has(key)) {
          seen.add(key);
          columns.push(key);
        }
      }
    }
    return { caption, header: columns, rows: items.map((item) => columns.map((c) => cell(item[c]))), beforeBlock };
  }
  return { caption, header: [caption], rows: items.map((v) => [cell(v)]), beforeBlock };
}

/**
 * JSON: an array (of records) is one table; an object gives one table per array-valued field (named
 * by the field) and keeps its text fields as prose, so a report-like JSON stays searchable. A "title"
 * field names the document.
 */
export function parseJson(source: string, title: string): ParsedDocument {
  // cell() writes nested values back out recursively: deep nesting would overflow its stack.
  checkJsonDepth(source);
  let value: Json;
  try {
    value = JSON.parse(source.replace(/^\uFEFF/, "")) as Json;
  } catch (e) {
    throw new DocumentParseError(`not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const blocks: TextBlock[] = [];
  const tables: ParsedTable[] = [];
  if (Array.isArray(value)) {
    const table = arrayToTable(value, title, 0);
    if (table) tables.push(table);
  } else if (isRecord(value)) {
    for (const [key, field] of Object.entries(value)) {
      if (Array.isArray(field)) {
        const table = arrayToTable(field, key, blocks.length);
        if (table) tables.push(table);
      } else if (typeof field === "string" && field.trim() && key !== "title") {
        blocks.push({ text: field, section: key });
      }
    }
  }
  if (tables.length === 0 && blocks.length === 0) {
    throw new DocumentParseError(`the JSON holds no array of records and no text to index`);
  }
  const docTitle = isRecord(value) && typeof value.title === "string" && value.title.trim() ? value.title : title;
  return { title: docTitle, blocks, tables };
}
