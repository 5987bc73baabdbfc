import type { Metadata } from "next";
import { ComingSoon } from "@/components/ui/coming-soon";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { rolesFor } from "@/lib/navigation";

export const metadata: Metadata = { title: "Extraction guides" };

export default async function GuidesPage() {
  await requireRole(rolesFor("/guides"), "/guides");
  return (
    <>
      <PageHeader title="Extraction guides" description="Worked examples (a question plus the sources, actions and contexts that answered it) that steer retrieval." />
      <ComingSoon>
        <p>List, search and author guides, or save a corrected run as a guide; see which runs each guide helped.</p>
      </ComingSoon>
    </>
  );
}
