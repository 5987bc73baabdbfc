import { z } from "zod";
import type { Prisma, PrismaClient } from "../db/generated/client";

/** The admin page's filters (and the CSV export's: the same query string). */
export const auditFilterSchema = z.object({
  actor: z.string().trim().max(320).optional(),
  action: z.string().trim().max(100).optional(),
  kbId: z.string().trim().max(200).optional(),
  from: z.iso.date("Use a date such as 2026-11-28.").optional(),
  to: z.iso.date("Use a date such as 2026-11-28.").optional(),
});
export type AuditFilter = z.infer<typeof auditFilterSchema>;

/** Query-string values as the form sends them: empty fields count as unset. */
export function parseAuditFilter(params: Record<string, string | string[] | undefined>): AuditFilter {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;
  const parsed = auditFilterSchema.safeParse({
    actor: first(params.actor),
    action: first(params.action),
    kbId: first(params.kbId),
    from: first(params.from),
    to: first(params.to),
  });
  return parsed.success ? parsed.data : {};
}

export interface AuditRow {
  id: string;
  at: string;
  action: string;
  outcome: string;
  actorId: string | null;
  actorEmail: string | null;
  address: string | null;
  targetType: string | null;
  targetId: string | null;
  kbIds: string[];
  runId: string | null;
  before: unknown;
  after: unknown;
  detail: unknown;
}

function where(f: AuditFilter): Prisma.AuditEventWhereInput {
  const and: Prisma.AuditEventWhereInput[] = [];
  if (f.actor) and.push({ OR: [{ actorEmail: { contains: f.actor.toLowerCase(), mode: "insensitive" } }, { actorId: f.actor }] });
  // "kb." matches every knowledge-base action; "ask" only asks.
  if (f.action) and.push(f.action.endsWith(".") ? { action: { startsWith: f.action } } : { action: f.action });
  if (f.kbId) and.push({ kbIds: { has: f.kbId } });
  if (f.from) and.push({ at: { gte: new Date(`${f.from}T00:00:00.000Z`) } });
  // The whole "to" day (UTC) is included.
  if (f.to) and.push({ at: { lt: new Date(new Date(`${f.to}T00:00:00.000Z`).getTime() + 86_400_000) } });
  return and.length ? { AND: and } : {};
}

export async function listAuditEvents(
  prisma: PrismaClient,
  filter: AuditFilter,
  limit = 200,
): Promise<{ rows: AuditRow[]; total: number }> {
  const w = where(filter);
  const [rows, total] = await Promise.all([
    prisma.auditEvent.findMany({ where: w, orderBy: [{ at: "desc" }, { id: "desc" }], take: limit }),
    prisma.auditEvent.count({ where: w }),
  ]);
  return { rows: rows.map((r) => ({ ...r, at: r.at.toISOString() })), total };
}

/** Every matching row, oldest first, in pages (the export streams them). */
export async function* allAuditEvents(prisma: PrismaClient, filter: AuditFilter, pageSize = 1000): AsyncGenerator<AuditRow> {
  let cursor: string | undefined;
  for (;;) {
    const page = await prisma.auditEvent.findMany({
      where: where(filter),
      orderBy: [{ at: "asc" }, { id: "asc" }],
      take: pageSize,
      ...(cursor ? { skip: 1, cursor: { id: cursor } } : {}),
    });
    for (const r of page) yield { ...r, at: r.at.toISOString() };
    if (page.length < pageSize) return;
    cursor = page[page.length - 1].id;
  }
}

/** The actions recorded so far, for the filter's list. */
export async function auditActions(prisma: PrismaClient): Promise<string[]> {
  const rows = await prisma.auditEvent.findMany({ distinct: ["action"], select: { action: true }, orderBy: { action: "asc" } });
  return rows.map((r) => r.action);
}
