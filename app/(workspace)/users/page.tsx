import type { Metadata } from "next";
import { SignInThrottles } from "@/components/users/sign-in-throttles";
import { UsersAdmin } from "@/components/users/users-admin";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { SignInThrottle, signInThrottleView } from "@/lib/auth/sign-in-throttle";
import { db } from "@/lib/db/client";
import { rolesFor } from "@/lib/navigation";
import { listGroups, listUsers } from "@/lib/users/users";

export const metadata: Metadata = { title: "Users" };

export default async function UsersPage() {
  const me = await requireRole(rolesFor("/users"), "/users");
  const prisma = await db();
  const [users, groups, throttles] = await Promise.all([listUsers(prisma), listGroups(prisma), new SignInThrottle(prisma).list()]);
  return (
    <>
      <PageHeader
        title="Users"
        description="Create accounts, set roles, and put people in groups. Groups decide which knowledge bases someone may use."
      />
      <UsersAdmin initial={{ users, groups }} currentUserId={me.id} />
      <SignInThrottles initial={signInThrottleView(throttles)} shownAt={new Date().toISOString()} />
    </>
  );
}
