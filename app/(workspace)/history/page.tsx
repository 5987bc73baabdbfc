import type { Metadata } from "next";
import { type HistoryData, HistoryBrowser } from "@/components/history/history-browser";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { rolesFor } from "@/lib/navigation";
import { searchConversations, searchRuns } from "@/lib/runs/history";
import { listHistorySchema } from "@/lib/runs/runs.validation";

export const metadata: Metadata = { title: "History" };

export default async function HistoryPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const user = await requireRole(rolesFor("/history"), "/history");
  const raw = await searchParams;
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  // A hand-edited address with a bad page or view falls back to the first page of questions.
  const parsed = listHistorySchema.safeParse({ q: first(raw.q), page: first(raw.page), view: first(raw.view) });
  const { q, page, view } = parsed.success ? parsed.data : listHistorySchema.parse({});
  const prisma = await db();
  const initial: HistoryData =
    view === "conversations"
      ? { view, page: await searchConversations(prisma, user, { q, page }) }
      : { view, page: await searchRuns(prisma, user, { q, page }) };
  return (
    <>
      <PageHeader
        title="History"
        description="Your past questions and conversations. Search by the words of a question; open one to see its answer, evidence and refinement path as they were."
      />
      <HistoryBrowser initial={initial} initialQ={q} initialPage={page} />
    </>
  );
}
