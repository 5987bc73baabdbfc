import type { AccessSubject } from "../catalog/access";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { TURN_SELECT, answerShapes, turnView } from "./load-run";
import { type HistoryQuery, historyQuerySchema } from "./runs.validation";
import type { HistoryConversation, HistoryRun, Page } from "./types";

/** `contains` takes the text literally only once LIKE's own wildcards are escaped ("50%" must not match everything). */
function likeEscaped(q: string): string {
  return q.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function questionMatches(q: string): Prisma.RunWhereInput {
  return q ? { question: { contains: likeEscaped(q), mode: "insensitive" } } : {};
}

function pageOf<T>(rows: T[], total: number, page: number, pageSize: number): Page<T> {
  return { rows, total, page, pageSize, pages: Math.max(1, Math.ceil(total / pageSize)) };
}

/** The person's own questions, newest first, optionally those whose text contains `q` (case-insensitive). */
export async function searchRuns(prisma: PrismaClient, user: AccessSubject, raw: HistoryQuery = {}): Promise<Page<HistoryRun>> {
  const { q, page, pageSize } = historyQuerySchema.parse(raw);
  const where: Prisma.RunWhereInput = { userId: user.id, ...questionMatches(q) };
  const [rows, total] = await Promise.all([
    prisma.run.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: (page - 1) * pageSize,
      take: pageSize,
      select: {
        ...TURN_SELECT,
        feedback: { where: { userId: user.id }, orderBy: { createdAt: "desc" }, take: 1, select: { verdict: true } },
      },
    }),
    prisma.run.count({ where }),
  ]);
  const shapes = await answerShapes(
    prisma,
    rows.map((r) => r.id),
  );
  return pageOf(
    rows.map((r) => ({ ...turnView(r, shapes.get(r.id) ?? null), feedback: r.feedback[0]?.verdict ?? null })),
    total,
    page,
    pageSize,
  );
}

/** The person's conversations, most recently active first; with `q`, those whose title or any question contains it. */
export async function searchConversations(
  prisma: PrismaClient,
  user: AccessSubject,
  raw: HistoryQuery = {},
): Promise<Page<HistoryConversation>> {
  const { q, page, pageSize } = historyQuerySchema.parse(raw);
  const where: Prisma.ConversationWhereInput = {
    userId: user.id,
    runs: { some: {} },
    ...(q ? { OR: [{ title: { contains: likeEscaped(q), mode: "insensitive" } }, { runs: { some: questionMatches(q) } }] } : {}),
  };
  const [rows, total] = await Promise.all([
    prisma.conversation.findMany({
      where,
      orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
      skip: (page - 1) * pageSize,
      take: pageSize,
      select: {
        id: true,
        title: true,
        updatedAt: true,
        _count: { select: { runs: true } },
        runs: { orderBy: { createdAt: "desc" }, take: 1, select: TURN_SELECT },
      },
    }),
    prisma.conversation.count({ where }),
  ]);
  const shapes = await answerShapes(
    prisma,
    rows.flatMap((c) => c.runs.map((r) => r.id)),
  );
  return pageOf(
    rows.map((c) => ({
      id: c.id,
      title: c.title,
      updatedAt: c.updatedAt.toISOString(),
      turns: c._count.runs,
      last: c.runs[0] ? turnView(c.runs[0], shapes.get(c.runs[0].id) ?? null) : null,
    })),
    total,
    page,
    pageSize,
  );
}
