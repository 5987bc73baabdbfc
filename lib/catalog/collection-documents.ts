import { type CollectionDocument, collectionActions } from "../backends/documents/actions";
import { openBackend } from "../backends/registry";
import type { KbKind } from "../backends/types";
import type { PrismaClient } from "../db/generated/client";
import type { CatalogDeps } from "../deps";
import { AppError } from "../errors";
import { type AccessSubject, kbAccessWhere } from "./access";
import { withBackendErrors } from "./backend-errors";

/** Documents listed on a collection's page; a larger collection says how many more it holds. */
export const LISTED_DOCUMENTS = 500;
/** Sentences a document's preview shows. */
export const PREVIEW_SENTENCES = 12;

async function collection(prisma: PrismaClient, deps: CatalogDeps, user: AccessSubject, kbId: string) {
  const kb = await prisma.knowledgeBase.findFirst({ where: { AND: [{ id: kbId }, kbAccessWhere(user)] } });
  if (!kb) throw new AppError("NOT_FOUND", "That knowledge base does not exist or is not shared with you.");
  if (kb.kind !== "DOCUMENTS") throw new AppError("VALIDATION", `${kb.name} is not a document collection.`);
  return collectionActions(openBackend({ ...kb, kind: kb.kind as KbKind }, deps));
}

/** A collection's readable documents by title (at most LISTED_DOCUMENTS), for its page. */
export async function listKbDocuments(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  kbId: string,
): Promise<{ documents: CollectionDocument[]; more: boolean }> {
  return withBackendErrors(async () => {
    const documents = await (await collection(prisma, deps, user, kbId)).listDocuments(LISTED_DOCUMENTS + 1);
    return { documents: documents.slice(0, LISTED_DOCUMENTS), more: documents.length > LISTED_DOCUMENTS };
  });
}

/** The first sentences of one document, as its preview on the collection's page. */
export async function previewKbDocument(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  kbId: string,
  documentId: string,
): Promise<{ documentId: string; sentences: string[]; total: number }> {
  return withBackendErrors(async () => {
    const all = await (await collection(prisma, deps, user, kbId)).readSentences(documentId);
    return { documentId, sentences: all.slice(0, PREVIEW_SENTENCES), total: all.length };
  });
}
