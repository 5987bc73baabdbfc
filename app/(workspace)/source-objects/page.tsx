import type { Metadata } from "next";
import { ComingSoon } from "@/components/ui/coming-soon";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { rolesFor } from "@/lib/navigation";

export const metadata: Metadata = { title: "Source objects" };

export default async function SourceObjectsPage() {
  await requireRole(rolesFor("/source-objects"), "/source-objects");
  return (
    <>
      <PageHeader title="Source objects" description="The units of content retrieval works with: document tables, collections, SQL tables, RDF classes, graph labels." />
      <ComingSoon>
        <p>Browse and filter by knowledge base, type and tag; preview a chunk or a table; run retrieval actions; edit descriptions and tags; refresh dynamic objects.</p>
      </ComingSoon>
    </>
  );
}
