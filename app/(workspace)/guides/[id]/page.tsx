import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { GuideHealth } from "@/components/guides/check-guide";
import { DeleteGuide } from "@/components/guides/delete-guide";
import { GuideDetailView } from "@/components/guides/guide-detail";
import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { rolesFor } from "@/lib/navigation";
import { getGuide } from "@/lib/guides/get";

export const metadata: Metadata = { title: "Extraction guide" };

export default async function GuidePage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ saved?: string; resolved?: string }>;
}) {
  const { id } = await params;
  const user = await requireRole(rolesFor("/guides"), `/guides/${id}`);
  const guide = await getGuide(await db(), user, id).catch((e) => {
    if (e instanceof AppError && e.code === "NOT_FOUND") notFound();
    throw e;
  });
  const { saved, resolved } = await searchParams;
  return (
    <>
      <Link href="/guides" className="text-sm text-brand-700 hover:underline">
        ← Extraction guides
      </Link>
      <div className="mt-2">
        <PageHeader
          title={guide.question}
          description="An extraction guide: similar questions retrieve it, and its sources and actions steer source selection and query writing."
          actions={
            <div className="flex items-start gap-2">
              <Link
                href={`/guides/${guide.id}/edit`}
                className="inline-flex items-center rounded-md bg-brand-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-brand-700"
              >
                Edit
              </Link>
              <DeleteGuide id={guide.id} />
            </div>
          }
        />
      </div>
      {resolved && (
        <div className="mb-4">
          <Alert tone="success">
            Guide saved and the report resolved.{" "}
            <Link href="/feedback" className="font-medium underline">
              Back to the queue
            </Link>
          </Alert>
        </div>
      )}
      {saved && !resolved && (
        <div className="mb-4">
          <Alert tone="success">Guide saved. Questions like this one will use it from now on.</Alert>
        </div>
      )}
      <GuideHealth id={guide.id} brokenReason={guide.brokenReason} />
      <GuideDetailView guide={guide} />
    </>
  );
}
