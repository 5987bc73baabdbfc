import { z } from "zod";
import { openBackend } from "../backends/registry";
import { quoteIdent } from "../backends/sql/dialect";
import type { KbKind } from "../backends/types";
import type { Prisma, PrismaClient } from "../db/generated/client";
import type { CatalogDeps } from "../deps";
import { AppError } from "../errors";
import type { AccessSubject } from "./access";
import { asAppError } from "./backend-errors";
import { tableColumns } from "./semantic-texts";
import { findAccessibleSourceObject } from "./source-objects";
import {
  MeasureExpressionError,
  parseMeasureExpression,
  readTableNotes,
  renderExpression,
  tableNotesSchema,
  type TableNotes,
} from "./table-notes";

/** Reading and saving an analyst's notes on a table (table-notes.ts): only tables of relational knowledge bases take them. */

export const saveTableNotesSchema = z.object({ id: z.string().min(1), notes: tableNotesSchema });

export interface TableNotesView {
  id: string;
  table: string;
  /** The table's columns as the last refresh read them. */
  columns: string[];
  notes: TableNotes;
}

async function tableObject(prisma: PrismaClient, user: AccessSubject, id: string) {
  const o = await findAccessibleSourceObject(prisma, user, id);
  if (o.kb.kind !== "SQL" || o.contentType !== "TABLE" || o.mode !== "STATIC")
    throw new AppError("VALIDATION", "Column notes and measures belong to the tables of a relational knowledge base.");
  return o;
}

export async function getTableNotes(prisma: PrismaClient, user: AccessSubject, id: string): Promise<TableNotesView> {
  const o = await tableObject(prisma, user, id);
  return { id: o.id, table: o.key, columns: tableColumns(o.metadata), notes: readTableNotes(o.annotations) };
}

/**
 * Saves the notes after checking them against the table: every noted column exists, every measure's
 * expression parses over the table's columns and runs once on the engine (through the backend's own
 * safety checks and bounds), so a measure that would fail in every answer is refused now, with its field named.
 */
export async function saveTableNotes(prisma: PrismaClient, deps: CatalogDeps, user: AccessSubject, raw: unknown): Promise<TableNotesView> {
  const input = saveTableNotesSchema.parse(raw);
  const o = await tableObject(prisma, user, input.id);
  const columns = tableColumns(o.metadata);
  const known = new Map(columns.map((c) => [c.toLowerCase(), c]));
  const fields: Record<string, string> = {};
  const notedColumns = input.notes.columns
    .filter((c) => c.synonyms.length > 0 || c.description !== "")
    .map((c, i) => {
      const name = known.get(c.name.toLowerCase());
      if (!name) fields[`columns.${i}.name`] = `"${c.name}" is not a column of ${o.key}.`;
      return { ...c, name: name ?? c.name };
    });
  const columnNames = new Set(columns.map((c) => c.toLowerCase()));
  const parsed = input.notes.measures.map((m, i) => {
    if (columnNames.has(m.name.toLowerCase())) fields[`measures.${i}.name`] = `${o.key} already has a column called "${m.name}".`;
    try {
      return parseMeasureExpression(m.expression, columns);
    } catch (e) {
      if (!(e instanceof MeasureExpressionError)) throw e;
      fields[`measures.${i}.expression`] = e.message;
      return null;
    }
  });
  if (Object.keys(fields).length > 0) throw new AppError("VALIDATION", "Some notes do not fit the table; nothing was saved.", fields);

  // The cached backend of the KB (registry.ts): shared with every other reader, so it stays open.
  const backend = openBackend({ ...o.kb, kind: o.kb.kind as KbKind }, deps);
  for (const [i, m] of input.notes.measures.entries()) {
    const sql = `SELECT ${m.aggregate.toUpperCase()}(${renderExpression(parsed[i]!, quoteIdent)}) AS ${quoteIdent(m.name)} FROM ${quoteIdent(o.key)}`;
    try {
      await backend.execute({ language: "sql", text: sql }, { maxRows: 1, timeoutMs: 15_000 });
    } catch (e) {
      const message = (asAppError(e) as Error).message;
      throw new AppError("VALIDATION", `The measure "${m.name}" does not run: ${message}`, { [`measures.${i}.expression`]: message });
    }
  }

  const notes: TableNotes = { columns: notedColumns, measures: input.notes.measures };
  await prisma.sourceObject.update({ where: { id: o.id }, data: { annotations: notes as unknown as Prisma.InputJsonValue } });
  return { id: o.id, table: o.key, columns, notes };
}
