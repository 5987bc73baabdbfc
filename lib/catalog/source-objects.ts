import { type CollectionDocument, collectionActions } from "../backends/documents/actions";
import { COLLECTION_UNIT } from "../backends/documents/records";
import { openBackend, type KbRecord } from "../backends/registry";
import { LANGUAGE_OF, type KbKind, type Preview, type RawResult, type Scalar } from "../backends/types";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { type AccessSubject, kbAccessWhere, sourceObjectAccessWhere } from "./access";
import { asAppError } from "./backend-errors";
import type { CatalogDeps } from "../deps";
import { createDynamicSourceObjectSchema, listSourceObjectsSchema, updateSourceObjectSchema } from "./source-objects.validation";
import { count } from "../format/count";

export interface SourceObjectRow {
  id: string;
  kbId: string;
  kbName: string;
  kbKind: KbKind;
  key: string;
  name: string;
  contentType: "TEXT" | "TABLE" | "GRAPH";
  mode: "STATIC" | "DYNAMIC";
  tags: string[];
  description: string;
  descriptionEdited: boolean;
  refreshQuery: string | null;
  refreshError: string | null;
  lastRefreshedAt: string | null;
}

const SELECT = {
  id: true,
  kbId: true,
  key: true,
  name: true,
  contentType: true,
  mode: true,
  tags: true,
  description: true,
  descriptionEdited: true,
  refreshQuery: true,
  refreshError: true,
  lastRefreshedAt: true,
  kb: { select: { name: true, kind: true } },
} satisfies Prisma.SourceObjectSelect;

function toRow(o: Prisma.SourceObjectGetPayload<{ select: typeof SELECT }>): SourceObjectRow {
  return {
    id: o.id,
    kbId: o.kbId,
    kbName: o.kb.name,
    kbKind: o.kb.kind as KbKind,
    key: o.key,
    name: o.name,
    contentType: o.contentType,
    mode: o.mode,
    tags: o.tags,
    description: o.description,
    descriptionEdited: o.descriptionEdited,
    refreshQuery: o.refreshQuery,
    refreshError: o.refreshError,
    lastRefreshedAt: o.lastRefreshedAt?.toISOString() ?? null,
  };
}

export async function listSourceObjects(prisma: PrismaClient, user: AccessSubject, raw: unknown = {}): Promise<SourceObjectRow[]> {
  const f = listSourceObjectsSchema.parse(raw);
  const rows = await prisma.sourceObject.findMany({
    where: {
      AND: [
        sourceObjectAccessWhere(user),
        f.kbId ? { kbId: f.kbId } : {},
        f.contentType ? { contentType: f.contentType } : {},
        f.mode ? { mode: f.mode } : {},
        f.tag ? { tags: { has: f.tag.toLowerCase() } } : {},
        f.q
          ? {
              OR: [
                { name: { contains: f.q, mode: "insensitive" } },
                { description: { contains: f.q, mode: "insensitive" } },
                { key: { contains: f.q, mode: "insensitive" } },
                { tags: { has: f.q.trim().toLowerCase() } },
              ],
            }
          : {},
      ],
    },
    orderBy: [{ kb: { name: "asc" } }, { name: "asc" }],
    take: 2000,
    select: SELECT,
  });
  return rows.map(toRow);
}

export async function findAccessibleSourceObject(prisma: PrismaClient, user: AccessSubject, id: string) {
  const o = await prisma.sourceObject.findFirst({ where: { AND: [{ id }, sourceObjectAccessWhere(user)] }, include: { kb: true } });
  if (!o) throw new AppError("NOT_FOUND", "That source object does not exist or is not shared with you.");
  return o;
}

export async function updateSourceObject(prisma: PrismaClient, user: AccessSubject, raw: unknown) {
  const input = updateSourceObjectSchema.parse(raw);
  await findAccessibleSourceObject(prisma, user, input.id);
  await prisma.sourceObject.update({
    where: { id: input.id },
    data: { name: input.name, description: input.description, tags: input.tags, descriptionEdited: true },
  });
}

const CONTENT_TYPE_OF: Record<KbKind, "TEXT" | "TABLE" | "GRAPH"> = { DOCUMENTS: "TEXT", SQL: "TABLE", SPARQL: "GRAPH", CYPHER: "GRAPH" };
const SNAPSHOT_ROWS = 200;

interface Snapshot {
  columns: string[];
  rows: Scalar[][];
  truncated: boolean;
  elapsedMs: number;
}

function snapshotOf(result: RawResult): Snapshot {
  const cell = (v: unknown): Scalar => (v === null || v === undefined ? null : typeof v === "object" ? JSON.stringify(v) : (v as Scalar));
  return {
    columns: result.columns,
    rows: result.records.slice(0, SNAPSHOT_ROWS).map((r) => result.columns.map((c) => cell(r[c]))),
    truncated: result.truncated || result.records.length > SNAPSHOT_ROWS,
    elapsedMs: result.elapsedMs,
  };
}

async function runSavedQuery(deps: CatalogDeps, kb: Omit<KbRecord, "kind"> & { kind: string }, query: string) {
  const kind = kb.kind as KbKind;
  const backend = openBackend({ ...kb, kind }, deps);
  return backend.execute({ language: LANGUAGE_OF[kind], text: query }, { maxRows: SNAPSHOT_ROWS, timeoutMs: 15_000 });
}

/**
 * An analyst's dynamic source object: a saved native query whose result is the content. The query
 * runs once now (through the backend's safety checks), so an unsafe or broken query is refused before saving.
 */
export async function createDynamicSourceObject(prisma: PrismaClient, deps: CatalogDeps, user: AccessSubject, raw: unknown) {
  const input = createDynamicSourceObjectSchema.parse(raw);
  const kb = await prisma.knowledgeBase.findFirst({ where: { AND: [{ id: input.kbId }, kbAccessWhere(user)] } });
  if (!kb) throw new AppError("NOT_FOUND", "That knowledge base does not exist or is not shared with you.");
  let result: RawResult;
  try {
    result = await runSavedQuery(deps, kb, input.query);
  } catch (e) {
    const err = asAppError(e);
    if (err instanceof AppError) throw new AppError(err.code, err.message, { query: err.message });
    throw err;
  }
  const key = `dynamic:${input.name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-")}`;
  const clash = await prisma.sourceObject.findUnique({ where: { kbId_key: { kbId: kb.id, key } } });
  if (clash)
    throw new AppError("CONFLICT", `This knowledge base already has a source object named "${input.name}".`, {
      name: "This name is taken.",
    });
  const created = await prisma.sourceObject.create({
    data: {
      kbId: kb.id,
      key,
      name: input.name,
      contentType: CONTENT_TYPE_OF[kb.kind as KbKind],
      mode: "DYNAMIC",
      refreshQuery: input.query,
      tags: input.tags,
      description:
        input.description ||
        `Saved query over ${kb.name}: ${result.columns.join(", ")} (${result.truncated ? `${result.records.length.toLocaleString("en")}+ rows` : count(result.records.length, "row")}).`,
      descriptionEdited: !!input.description,
      snapshot: snapshotOf(result) as unknown as Prisma.InputJsonValue,
      lastRefreshedAt: new Date(),
      createdById: user.id,
    },
    select: SELECT,
  });
  return toRow(created);
}

/** Re-runs a dynamic object's query; a failure is recorded on the object and the last good snapshot kept. */
export async function refreshDynamicSourceObject(prisma: PrismaClient, deps: CatalogDeps, user: AccessSubject, id: string) {
  const o = await findAccessibleSourceObject(prisma, user, id);
  if (o.mode !== "DYNAMIC" || !o.refreshQuery)
    throw new AppError("VALIDATION", "Only dynamic source objects (saved queries) can be refreshed.");
  try {
    const result = await runSavedQuery(deps, o.kb, o.refreshQuery);
    await prisma.sourceObject.update({
      where: { id },
      data: { snapshot: snapshotOf(result) as unknown as Prisma.InputJsonValue, lastRefreshedAt: new Date(), refreshError: null },
    });
    return { ok: true as const, rows: result.records.length, truncated: result.truncated };
  } catch (e) {
    const message = (asAppError(e) as Error).message;
    await prisma.sourceObject.update({ where: { id }, data: { refreshError: message } });
    return { ok: false as const, message };
  }
}

export async function previewSourceObject(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  id: string,
  limit = 20,
): Promise<Preview> {
  const o = await findAccessibleSourceObject(prisma, user, id);
  if (o.mode === "DYNAMIC") {
    const snap = o.snapshot as unknown as Snapshot | null;
    if (!snap) throw new AppError("NOT_FOUND", "This saved query has not produced a result yet. Refresh it.");
    return {
      kind: "table",
      title: o.name,
      columns: snap.columns,
      rows: snap.rows.slice(0, limit),
      totalRows: snap.rows.length,
      truncated: snap.truncated || snap.rows.length > limit,
    };
  }
  try {
    return await openBackend({ ...o.kb, kind: o.kb.kind as KbKind }, deps).preview(o.key, { limit });
  } catch (e) {
    throw asAppError(e);
  }
}

export async function listKbsForPicker(prisma: PrismaClient, user: AccessSubject) {
  return prisma.knowledgeBase.findMany({
    where: kbAccessWhere(user),
    orderBy: { name: "asc" },
    select: { id: true, name: true, kind: true },
  });
}

export type { CollectionDocument } from "../backends/documents/actions";

async function collectionOf(prisma: PrismaClient, user: AccessSubject, id: string) {
  const o = await findAccessibleSourceObject(prisma, user, id);
  if (o.kb.kind !== "DOCUMENTS" || o.key !== COLLECTION_UNIT) {
    throw new AppError("VALIDATION", "Sentences can be selected in a document collection's text; this source object is not one.");
  }
  return o.kb;
}

/**
 * The documents of a collection source object, for SelectSentenceIdxs: AU-RAG addresses sentences by
 * document, so the analyst picks a document first. Reads the collection index read-only.
 */
export async function listCollectionDocuments(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  sourceObjectId: string,
): Promise<CollectionDocument[]> {
  const kb = await collectionOf(prisma, user, sourceObjectId);
  try {
    return await collectionActions(openBackend(kb, deps)).listDocuments(5000);
  } catch (e) {
    throw asAppError(e);
  }
}

export const MAX_DOCUMENT_SENTENCES = 3000;

/** A document's sentences in order (sentence i is what SelectSentenceIdxs calls i). */
export async function collectionDocumentSentences(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  sourceObjectId: string,
  documentId: string,
) {
  const kb = await collectionOf(prisma, user, sourceObjectId);
  try {
    const all = await collectionActions(openBackend(kb, deps)).readSentences(documentId);
    return {
      documentId,
      sentences: all.slice(0, MAX_DOCUMENT_SENTENCES),
      total: all.length,
      truncated: all.length > MAX_DOCUMENT_SENTENCES,
    };
  } catch (e) {
    throw asAppError(e);
  }
}
