import type { Metadata } from "next";
import { ReviewQueue } from "@/components/feedback/review-queue";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { listReviewQueue } from "@/lib/feedback/queue";
import { rolesFor } from "@/lib/navigation";

export const metadata: Metadata = { title: "Feedback review" };

export default async function FeedbackPage() {
  const user = await requireRole(rolesFor("/feedback"), "/feedback");
  const initial = await listReviewQueue(await db(), user, { status: "OPEN" });
  return (
    <>
      <PageHeader
        title="Feedback review"
        description="Answers people marked as wrong, on knowledge bases you may use. Open the run to see what happened; turn it into an extraction guide so the next similar question is answered right, or dismiss it."
      />
      <ReviewQueue initial={initial} />
    </>
  );
}
