import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { GuideEditor } from "@/components/guides/guide-editor";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { listKbsForPicker } from "@/lib/catalog/source-objects";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { rolesFor } from "@/lib/navigation";
import { draftOfGuide } from "@/lib/guides/drafts";
import { getGuide } from "@/lib/guides/get";

export const metadata: Metadata = { title: "Edit extraction guide" };

export default async function EditGuidePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requireRole(rolesFor("/guides"), `/guides/${id}/edit`);
  const prisma = await db();
  const [guide, kbs] = await Promise.all([
    getGuide(prisma, user, id).catch((e) => {
      if (e instanceof AppError && e.code === "NOT_FOUND") notFound();
      throw e;
    }),
    listKbsForPicker(prisma, user),
  ]);
  return (
    <>
      <Link href={`/guides/${guide.id}`} className="text-sm text-brand-700 hover:underline">
        ← {guide.question}
      </Link>
      <div className="mt-2">
        <PageHeader
          title="Edit extraction guide"
          description="Changing an action clears its context; it is captured again when you run the action or save."
        />
      </div>
      <GuideEditor mode={{ kind: "edit", guideId: guide.id }} initial={draftOfGuide(guide)} kbs={kbs} submitLabel="Save changes" />
    </>
  );
}
