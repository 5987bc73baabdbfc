import type { Metadata } from "next";
import Link from "next/link";
import { GuideEditor } from "@/components/guides/guide-editor";
import { ReportSummary } from "@/components/guides/report-summary";
import { SchemaPanel } from "@/components/guides/schema-panel";
import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { listKbsForPicker } from "@/lib/catalog/source-objects";
import { db } from "@/lib/db/client";
import { catalogDeps } from "@/lib/deps";
import { AppError } from "@/lib/errors";
import type { ReviewItem } from "@/lib/feedback/queue";
import { draftFromReport } from "@/lib/feedback/resolve";
import { rolesFor } from "@/lib/navigation";
import type { GuideDraftInput } from "@/lib/guides/guides.validation";
import { guideActionSchema } from "@/lib/pipeline/guide-actions";
import { guideAccessWhere } from "@/lib/guides/access";
import { guideDraftFromRun } from "@/lib/guides/from-run";
import { schemaOutlines } from "@/lib/guides/schema-outline";

export const metadata: Metadata = { title: "New extraction guide" };

type Search = { fromRun?: string; fromFeedback?: string; kb?: string; so?: string; action?: string };

/** One action handed over from the source-object workbench (?kb=…&so=…&action={kind, params}). */
function draftFromAction(search: Search): GuideDraftInput | null {
  if (!search.kb || !search.action) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(search.action);
  } catch {
    return null;
  }
  const action = guideActionSchema.safeParse(raw);
  if (!action.success) return null;
  return { question: "", sources: [{ kbId: search.kb, sourceObjectId: search.so ?? null, actions: [{ ...action.data, context: "" }] }] };
}

export default async function NewGuidePage({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  const user = await requireRole(rolesFor("/guides"), "/guides/new");
  const prisma = await db();
  const kbs = await listKbsForPicker(prisma, user);

  let initial: GuideDraftInput = draftFromAction(search) ?? { question: "", sources: [] };
  let origin: "run" | "saved" = "saved";
  let report: ReviewItem | null = null;
  let problem: string | null = null;
  let note: string | null = null;
  let existing: { id: string; question: string } | null = null;
  try {
    if (search.fromFeedback) {
      const r = await draftFromReport(prisma, user, search.fromFeedback, catalogDeps());
      ({ draft: initial, note } = r);
      report = r.item;
      origin = "run";
      if (report.status !== "OPEN") problem = "This report has already been resolved.";
      existing = report.runGuide;
    } else if (search.fromRun) {
      initial = await guideDraftFromRun(prisma, user, search.fromRun);
      origin = "run";
      if (!initial.sources.length)
        note = "The run ran no query that returned evidence: add the sources and actions that answer the question.";
      existing = await prisma.extractionGuide.findFirst({
        where: { AND: [{ fromRunId: search.fromRun }, guideAccessWhere(user)] },
        select: { id: true, question: true },
      });
    }
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== "NOT_FOUND") throw e;
    problem = e.message;
  }

  // From a Wrong report: the schemas beside the editor (the draft's sources, or every queryable KB shared with the analyst).
  const outlines = report ? await schemaOutlines(prisma, user, [...new Set(initial.sources.map((s) => s.kbId))]) : null;
  const title = report ? "Resolve a report with a guide" : search.fromRun ? "Save a run as a guide" : "New extraction guide";
  const editor = (
    <GuideEditor
      mode={report ? { kind: "resolve", feedbackId: report.id } : { kind: "create" }}
      initial={initial}
      kbs={kbs}
      origin={origin}
      submitLabel={report ? "Save guide and resolve report" : "Save guide"}
    />
  );
  return (
    <>
      <Link href={report ? "/feedback" : "/guides"} className="text-sm text-brand-700 hover:underline">
        ← {report ? "Feedback review" : "Extraction guides"}
      </Link>
      <div className="mt-2">
        <PageHeader
          title={title}
          description={
            report
              ? "The run's question and the queries behind its cited evidence, with the reporter's correct answer. Fix what misled the run, then save: the report is resolved with this guide."
              : search.fromRun
                ? "The run's question, answer and the queries that produced its cited evidence. Edit anything before saving."
                : "A question and the retrieval actions that answer it. Run each action to capture its context."
          }
        />
      </div>
      {problem ? (
        <Alert tone="error">
          {problem}{" "}
          <Link href={report ? "/feedback" : "/guides"} className="font-medium underline">
            Go back
          </Link>
        </Alert>
      ) : existing && !report ? (
        <Alert tone="info">
          This run is already saved as the guide{" "}
          <Link href={`/guides/${existing.id}`} className="font-medium underline">
            {existing.question}
          </Link>
          . Edit that guide instead.
        </Alert>
      ) : (
        <div className="space-y-4">
          {report && <ReportSummary item={report} />}
          {report && existing && (
            <Alert tone="info">
              This run is already saved as the guide{" "}
              <Link href={`/guides/${existing.id}`} className="font-medium underline">
                {existing.question}
              </Link>
              . You can resolve the report with that guide from the queue, or save a new one here.
            </Alert>
          )}
          {note && <Alert tone="info">{note}</Alert>}
          {outlines ? (
            <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_22rem]">
              <div className="min-w-0">{editor}</div>
              <SchemaPanel outlines={outlines} />
            </div>
          ) : (
            editor
          )}
        </div>
      )}
    </>
  );
}
