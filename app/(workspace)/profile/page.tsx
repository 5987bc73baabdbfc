import type { Metadata } from "next";
import { ApiKeys } from "@/components/profile/api-keys";
import { PageHeader } from "@/components/ui/page-header";
import { listAllApiKeys, listOwnApiKeys } from "@/lib/auth/api-keys";
import { ROLE_LABELS } from "@/lib/auth/roles";
import { requireUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";

export const metadata: Metadata = { title: "Profile" };

export default async function ProfilePage() {
  const me = await requireUser("/profile");
  const prisma = await db();
  const [own, all] = await Promise.all([listOwnApiKeys(prisma, me.id), me.role === "ADMIN" ? listAllApiKeys(prisma) : null]);
  return (
    <>
      <PageHeader title="Profile" description={`${me.name} · ${me.email} · ${ROLE_LABELS[me.role]}`} />
      <ApiKeys own={own} all={all} />
    </>
  );
}
