import type { Metadata } from "next";
import { SourceObjectBrowser } from "@/components/source-objects/source-object-browser";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { listKbsForPicker, listSourceObjects } from "@/lib/catalog/source-objects";
import { db } from "@/lib/db/client";
import { rolesFor } from "@/lib/navigation";

export const metadata: Metadata = { title: "Source objects" };

export default async function SourceObjectsPage() {
  const user = await requireRole(rolesFor("/source-objects"), "/source-objects");
  const prisma = await db();
  const [objects, kbs] = await Promise.all([listSourceObjects(prisma, user), listKbsForPicker(prisma, user)]);
  return (
    <>
      <PageHeader
        title="Source objects"
        description="The units of content retrieval works with: document collections and tables, SQL tables, RDF classes, graph labels, and saved queries. Good names, descriptions and tags help source selection."
      />
      <SourceObjectBrowser initial={objects} kbs={kbs} />
    </>
  );
}
