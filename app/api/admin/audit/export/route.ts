import { audit } from "@/lib/audit/audit";
import { AUDIT_CSV_HEADER, auditCsvLine, csvLine } from "@/lib/audit/csv";
import { allAuditEvents, auditFilterSchema } from "@/lib/audit/query";
import { requestActor } from "@/lib/audit/request-actor";
import { db } from "@/lib/db/client";
import { withAuthRoute } from "@/lib/http/route";

export const runtime = "nodejs";

/** The audit log as CSV (admins only), under the page's filters; streamed page by page. The export is itself recorded. */
export const GET = withAuthRoute(
  { name: "admin.audit.export", roles: ["ADMIN"], input: auditFilterSchema },
  async ({ req, user, input }) => {
    const prisma = await db();
    audit({ ...requestActor(user, req.headers), action: "audit.export", targetType: "audit", detail: { filter: input } }, prisma);
    const encoder = new TextEncoder();
    const rows = allAuditEvents(prisma, input);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(csvLine(AUDIT_CSV_HEADER)));
      },
      async pull(controller) {
        const next = await rows.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(auditCsvLine(next.value)));
      },
    });
    const day = new Date().toISOString().slice(0, 10);
    return new Response(stream, {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="mosaic-audit-${day}.csv"`,
        "cache-control": "no-store",
      },
    });
  },
);
