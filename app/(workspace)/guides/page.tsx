import type { Metadata } from "next";
import Link from "next/link";
import { GuideList } from "@/components/guides/guide-list";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { listKbsForPicker } from "@/lib/catalog/source-objects";
import { db } from "@/lib/db/client";
import { rolesFor } from "@/lib/navigation";
import { listGuides } from "@/lib/guides/list";

export const metadata: Metadata = { title: "Extraction guides" };

export default async function GuidesPage() {
  const user = await requireRole(rolesFor("/guides"), "/guides");
  const prisma = await db();
  const [guides, kbs] = await Promise.all([listGuides(prisma, user), listKbsForPicker(prisma, user)]);
  return (
    <>
      <PageHeader
        title="Extraction guides"
        description="Worked examples: a question plus the sources, retrieval actions and contexts that answer it. The pipeline finds the guides closest to a new question and uses them to choose sources and write queries."
        actions={
          <Link
            href="/guides/new"
            className="inline-flex items-center rounded-md bg-brand-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-brand-700"
          >
            New guide
          </Link>
        }
      />
      <GuideList initial={guides} kbs={kbs} />
    </>
  );
}
