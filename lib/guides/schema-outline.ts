import type { KbKind } from "../backends/types";
import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import type { PrismaClient } from "../db/generated/client";

/** Beyond this the compact descriptor is shown (every table named, details dropped). */
const FULL_MAX_CHARS = 8000;
/** Without a source in the draft, the schemas of this many queryable knowledge bases are shown. */
const MAX_KBS = 12;

export interface KbSchemaOutline {
  kbId: string;
  kbName: string;
  kind: KbKind;
  /** The knowledge base's descriptor (SQL tables and columns, RDF classes and predicates, graph labels), as query writing reads it. */
  schema: string;
}

/**
 * The schemas an analyst writes a guide's query against (the draft editor reached from a Wrong report):
 * the descriptors of the knowledge bases the draft names, or of the queryable ones the user may use.
 * Only knowledge bases shared with the user; document collections have no schema to show.
 */
export async function schemaOutlines(prisma: PrismaClient, user: AccessSubject, kbIds: string[] = []): Promise<KbSchemaOutline[]> {
  const rows = await prisma.knowledgeBase.findMany({
    where: { AND: [kbAccessWhere(user), { kind: { not: "DOCUMENTS" } }, kbIds.length ? { id: { in: kbIds } } : {}] },
    orderBy: { name: "asc" },
    take: MAX_KBS,
    select: { id: true, name: true, kind: true, descriptor: true, descriptorCompact: true },
  });
  return rows.map((k) => ({
    kbId: k.id,
    kbName: k.name,
    kind: k.kind as KbKind,
    schema:
      (k.descriptor && k.descriptor.length <= FULL_MAX_CHARS
        ? k.descriptor
        : (k.descriptorCompact ?? k.descriptor?.slice(0, FULL_MAX_CHARS))) ??
      "Not described yet: refresh the knowledge base to read its schema.",
  }));
}
