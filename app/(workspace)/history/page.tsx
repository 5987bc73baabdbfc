import type { Metadata } from "next";
import { ComingSoon } from "@/components/ui/coming-soon";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { rolesFor } from "@/lib/navigation";

export const metadata: Metadata = { title: "History" };

export default async function HistoryPage() {
  await requireRole(rolesFor("/history"), "/history");
  return (
    <>
      <PageHeader title="History" description="Your past questions and conversations, searchable, each reopening its full result." />
      <ComingSoon>
        <p>Every run you make will be listed here with its answer, sources and feedback.</p>
        <p>You have no runs yet.</p>
      </ComingSoon>
    </>
  );
}
