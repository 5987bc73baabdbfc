"use server";

import { z } from "zod";
import { authActionClient } from "@/lib/actions/safe-action";
import { auditedChange } from "@/lib/audit/change";
import { sourceObjectSnapshot } from "@/lib/audit/snapshots";
import { catalogDeps } from "@/lib/deps";
import {
  collectionDocumentSentences,
  createDynamicSourceObject,
  listCollectionDocuments,
  listSourceObjects,
  previewSourceObject,
  refreshDynamicSourceObject,
  updateSourceObject,
} from "@/lib/catalog/source-objects";
import {
  createDynamicSourceObjectSchema,
  listSourceObjectsSchema,
  updateSourceObjectSchema,
} from "@/lib/catalog/source-objects.validation";
import { db } from "@/lib/db/client";
import { getTableNotes, saveTableNotes, saveTableNotesSchema } from "@/lib/catalog/table-notes-store";

const CURATORS = ["ADMIN", "ANALYST"] as ("ADMIN" | "ANALYST")[];

export const listSourceObjectsAction = authActionClient
  .metadata({ name: "sourceObjects.list", roles: CURATORS })
  .inputSchema(listSourceObjectsSchema)
  .action(async ({ parsedInput, ctx }) => listSourceObjects(await db(), ctx.user, parsedInput));

export const previewSourceObjectAction = authActionClient
  .metadata({ name: "sourceObjects.preview", roles: CURATORS })
  .inputSchema(z.object({ id: z.string().min(1), limit: z.number().int().min(1).max(200).default(25) }))
  .action(async ({ parsedInput, ctx }) => previewSourceObject(await db(), catalogDeps(), ctx.user, parsedInput.id, parsedInput.limit));

export const updateSourceObjectAction = authActionClient
  .metadata({ name: "sourceObjects.update", roles: CURATORS })
  .inputSchema(updateSourceObjectSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    await auditedChange(
      prisma,
      ctx.actor,
      { action: "sourceObjects.update", targetType: "sourceObject", targetId: parsedInput.id, snapshot: sourceObjectSnapshot },
      () => updateSourceObject(prisma, ctx.user, parsedInput),
    );
    return { ok: true };
  });

export const createDynamicSourceObjectAction = authActionClient
  .metadata({ name: "sourceObjects.createDynamic", roles: CURATORS })
  .inputSchema(createDynamicSourceObjectSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    return auditedChange(
      prisma,
      ctx.actor,
      {
        action: "sourceObjects.createDynamic",
        targetType: "sourceObject",
        kbIds: [parsedInput.kbId],
        snapshot: sourceObjectSnapshot,
        idFrom: (r) => (r as { id?: string }).id,
      },
      () => createDynamicSourceObject(prisma, catalogDeps(), ctx.user, parsedInput),
    );
  });

export const refreshSourceObjectAction = authActionClient
  .metadata({ name: "sourceObjects.refresh", roles: CURATORS })
  .inputSchema(z.object({ id: z.string().min(1) }))
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    return auditedChange(prisma, ctx.actor, { action: "sourceObjects.refresh", targetType: "sourceObject", targetId: parsedInput.id }, () =>
      refreshDynamicSourceObject(prisma, catalogDeps(), ctx.user, parsedInput.id),
    );
  });

export const listCollectionDocumentsAction = authActionClient
  .metadata({ name: "sourceObjects.documents", roles: CURATORS })
  .inputSchema(z.object({ id: z.string().min(1) }))
  .action(async ({ parsedInput, ctx }) => listCollectionDocuments(await db(), catalogDeps(), ctx.user, parsedInput.id));

export const documentSentencesAction = authActionClient
  .metadata({ name: "sourceObjects.sentences", roles: CURATORS })
  .inputSchema(z.object({ id: z.string().min(1), documentId: z.string().min(1, "Choose a document.") }))
  .action(async ({ parsedInput, ctx }) =>
    collectionDocumentSentences(await db(), catalogDeps(), ctx.user, parsedInput.id, parsedInput.documentId),
  );

export const getTableNotesAction = authActionClient
  .metadata({ name: "sourceObjects.tableNotes", roles: CURATORS })
  .inputSchema(z.object({ id: z.string().min(1) }))
  .action(async ({ parsedInput, ctx }) => getTableNotes(await db(), ctx.user, parsedInput.id));

export const saveTableNotesAction = authActionClient
  .metadata({ name: "sourceObjects.saveTableNotes", roles: CURATORS })
  .inputSchema(saveTableNotesSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    return auditedChange(
      prisma,
      ctx.actor,
      { action: "sourceObjects.tableNotes", targetType: "sourceObject", targetId: parsedInput.id, snapshot: sourceObjectSnapshot },
      () => saveTableNotes(prisma, catalogDeps(), ctx.user, parsedInput),
    );
  });
