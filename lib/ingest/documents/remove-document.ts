import { type DocumentsConfig, documentsSecretsSchema } from "../../backends/documents/config";
import { openSearchTarget, sqliteTarget } from "../../backends/documents/ingest-target";
import { kbStorageDir, parseKbConfig } from "../../backends/registry";
import { decryptSecrets } from "../../crypto/secrets";
import type { PrismaClient } from "../../db/generated/client";
import type { CatalogDeps } from "../../deps";
import { AppError } from "../../errors";
import { type RefreshReport } from "../../catalog/refresh";
import { refreshKnowledgeBase } from "../refresh";

export interface RemovedDocument {
  documentId: string;
  /** The collection described again without it: descriptor, source objects (its tables' go), entity index. */
  refresh: RefreshReport;
}

/**
 * Removes one document from a collection, on whichever engine holds it: its passages, tables, table
 * rows and vectors go with it, then the collection is described again, so its tables' source objects,
 * its entities and its words leave the catalog too. Files still waiting in the collection's upload
 * queue are not touched (a queued file with the same name is added when its turn comes).
 */
export async function removeCollectionDocument(
  prisma: PrismaClient,
  deps: CatalogDeps,
  kbId: string,
  documentId: string,
): Promise<RemovedDocument> {
  const kb = await prisma.knowledgeBase.findUnique({
    where: { id: kbId },
    select: { id: true, name: true, kind: true, config: true, secretsCiphertext: true },
  });
  if (!kb) throw new AppError("NOT_FOUND", "That knowledge base no longer exists.");
  if (kb.kind !== "DOCUMENTS") throw new AppError("VALIDATION", `${kb.name} is not a document collection: it has no documents to remove.`);
  const config = parseKbConfig("DOCUMENTS", kb.config) as DocumentsConfig;
  const ctx = { kbId: kb.id, kbName: kb.name, storageDir: kbStorageDir(deps.dataDir, kb.id) };
  const target =
    config.engine === "opensearch"
      ? await openSearchTarget(
          ctx,
          config,
          documentsSecretsSchema.parse(kb.secretsCiphertext ? decryptSecrets(kb.secretsCiphertext, deps.encryptionKey) : {}),
        )
      : sqliteTarget(ctx, config);
  let removed: boolean;
  try {
    removed = await target.remove(documentId);
  } finally {
    await target.close();
  }
  if (!removed) throw new AppError("NOT_FOUND", "That document is no longer in the collection.");
  return { documentId, refresh: await refreshKnowledgeBase(prisma, deps, kb.id) };
}
