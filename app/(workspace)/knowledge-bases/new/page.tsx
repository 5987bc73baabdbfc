import type { Metadata } from "next";
import { RegisterKbForm } from "@/components/kb/register-form";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { rolesFor } from "@/lib/navigation";

export const metadata: Metadata = { title: "Register a knowledge base" };

export default async function NewKnowledgeBasePage() {
  await requireRole(rolesFor("/knowledge-bases"), "/knowledge-bases/new");
  const groups = await (await db()).group.findMany({ orderBy: { name: "asc" }, select: { id: true, name: true } });
  return (
    <>
      <PageHeader
        title="Register a knowledge base"
        description="Mosaic reads the source on its own terms: it describes it, creates its source objects and indexes its entities. Registration is all it takes."
      />
      <RegisterKbForm groups={groups} />
    </>
  );
}
