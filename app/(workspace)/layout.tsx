import type { ReactNode } from "react";
import { AppShell } from "@/components/shell/app-shell";
import { requireUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { demoAccountsWithPublishedPasswords } from "@/lib/demo/demo-accounts";
import { navItemsFor } from "@/lib/navigation";

export default async function WorkspaceLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  const nav = navItemsFor(user.role).map(({ href, label }) => ({ href, label }));
  const demoAccounts = user.role === "ADMIN" ? await demoAccountsWithPublishedPasswords(await db()) : [];
  return (
    <AppShell nav={nav} user={{ name: user.name, email: user.email, role: user.role }} demoAccounts={demoAccounts}>
      {children}
    </AppShell>
  );
}
