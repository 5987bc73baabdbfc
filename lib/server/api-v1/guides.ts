import "server-only";
import type { z } from "zod";
import { type AuditActor, audit } from "../../audit/audit";
import type { CurrentUser } from "../../auth/session";
import { getKnowledgeBase } from "../../catalog/knowledge-bases";
import type { PrismaClient } from "../../db/generated/client";
import type { CatalogDeps } from "../../deps";
import { importGuides } from "../../guides/files";
import { problemDetails } from "../../http/problem";
import type { guideImportReportSchema, guideImportSchema } from "./schemas";

type ImportReportBody = z.infer<typeof guideImportReportSchema>;

/**
 * POST /api/v1/guides/import over the CLI's domain function (lib/guides/files.ts importGuides): every
 * item checked (its knowledge base shared with the user, the source's safety rules, it runs, it returns
 * rows). When an item fails and `keepGoing` is not set nothing is imported, and the answer is a 422
 * problem details whose `fields` name each failed item (`guides.<index>`) and whose `report` holds the
 * per-item report; otherwise 200 with the report. An import that changed something is audited.
 */
export async function importGuidesThroughApi(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: CurrentUser,
  actor: AuditActor,
  input: z.output<typeof guideImportSchema>,
  opts: { signal?: AbortSignal; instance?: string; apiKeyId?: string },
): Promise<Response> {
  // The default knowledge base is named by id, as everywhere in the API; an id the user may not use is a 404.
  const defaultKb = input.kb ? (await getKnowledgeBase(prisma, user, input.kb)).name : undefined;
  const report = await importGuides(prisma, deps, user, input.guides, {
    defaultKb,
    keepGoing: input.keepGoing,
    dryRun: input.dryRun,
    signal: opts.signal,
  });
  const body: ImportReportBody = { ...report, dryRun: input.dryRun };
  if (report.imported > 0) {
    const kbNames = [...new Set(report.items.filter((r) => r.status === "imported" && r.kb).map((r) => r.kb!))];
    const kbs = await prisma.knowledgeBase.findMany({ where: { name: { in: kbNames } }, select: { id: true } });
    audit({
      ...actor,
      action: "guides.import",
      targetType: "guide",
      kbIds: kbs.map((k) => k.id),
      detail: {
        via: "api",
        apiKeyId: opts.apiKeyId ?? null,
        items: report.items.length,
        imported: report.imported,
        failed: report.failed,
        duplicates: report.duplicates,
        guideIds: report.items.flatMap((r) => (r.guideId ? [r.guideId] : [])),
      },
    });
  }
  if (report.failed > 0 && !input.keepGoing) {
    const fields = Object.fromEntries(report.items.filter((r) => r.status === "failed").map((r) => [`guides.${r.item - 1}`, r.detail]));
    const problem = problemDetails(
      {
        code: "VALIDATION",
        message: `${report.failed} of ${report.items.length} guides failed (see fields and report): nothing was imported. Fix them, or send keepGoing: true to import the good ones.`,
        fields,
      },
      422,
      opts.instance,
    );
    return new Response(JSON.stringify({ ...problem, report: body }), {
      status: 422,
      headers: { "content-type": "application/problem+json" },
    });
  }
  return Response.json(body);
}
