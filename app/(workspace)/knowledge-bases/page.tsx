import type { Metadata } from "next";
import { ComingSoon } from "@/components/ui/coming-soon";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { rolesFor } from "@/lib/navigation";

export const metadata: Metadata = { title: "Knowledge bases" };

export default async function KnowledgeBasesPage() {
  await requireRole(rolesFor("/knowledge-bases"), "/knowledge-bases");
  return (
    <>
      <PageHeader title="Knowledge bases" description="Register document collections, SQL databases, RDF graphs and Neo4j graphs, and watch their health." />
      <ComingSoon>
        <p>Register a knowledge base per kind (upload or connection form with a connection test), see its descriptor and source objects, restrict it to groups, re-describe, re-index or delete it.</p>
        <p>Connection secrets are encrypted at rest and never sent to the browser.</p>
      </ComingSoon>
    </>
  );
}
