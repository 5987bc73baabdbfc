import "server-only";
import { getServerSession } from "next-auth";
import { forbidden, redirect } from "next/navigation";
import { cache } from "react";
import { db } from "../db/client";
import type { Role } from "../db/generated/enums";
import { authOptions } from "./options";

export interface CurrentUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  groupIds: string[];
}

/**
 * The signed-in user, read fresh from the database on every request: the session token only says
 * who signed in, while role, groups and whether the account is still active come from the data,
 * so a demotion or deactivation takes effect at once.
 */
export const getCurrentUser = cache(async (): Promise<CurrentUser | null> => {
  const session = await getServerSession(authOptions());
  const id = session?.user?.id;
  if (!id) return null;
  const user = await (
    await db()
  ).user.findUnique({
    where: { id },
    select: { id: true, email: true, name: true, role: true, active: true, memberships: { select: { groupId: true } } },
  });
  if (!user || !user.active) return null;
  return { id: user.id, email: user.email, name: user.name, role: user.role, groupIds: user.memberships.map((m) => m.groupId) };
});

/** For pages: redirects to sign-in when signed out. */
export async function requireUser(callbackPath?: string): Promise<CurrentUser> {
  const user = await getCurrentUser();
  if (!user) redirect(callbackPath ? `/signin?callbackUrl=${encodeURIComponent(callbackPath)}` : "/signin");
  return user;
}

/** For pages: signed out goes to sign-in; a signed-in user without the role gets the 403 page. */
export async function requireRole(roles: readonly Role[], callbackPath?: string): Promise<CurrentUser> {
  const user = await requireUser(callbackPath);
  if (!roles.includes(user.role)) forbidden();
  return user;
}
