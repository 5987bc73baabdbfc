import type { Metadata } from "next";
import { UsersAdmin } from "@/components/users/users-admin";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { rolesFor } from "@/lib/navigation";
import { listGroups, listUsers } from "@/lib/users/users";

export const metadata: Metadata = { title: "Users" };

export default async function UsersPage() {
  const me = await requireRole(rolesFor("/users"), "/users");
  const prisma = await db();
  const [users, groups] = await Promise.all([listUsers(prisma), listGroups(prisma)]);
  return (
    <>
      <PageHeader title="Users" description="Create accounts, set roles, and put people in groups. Groups decide which knowledge bases someone may use." />
      <UsersAdmin initial={{ users, groups }} currentUserId={me.id} />
    </>
  );
}
