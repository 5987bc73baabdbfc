import Link from "next/link";
import type { ReactNode } from "react";
import { ROLE_LABELS } from "@/lib/auth/roles";
import { DemoAccountsBanner } from "./demo-accounts-banner";
import { NavLinks } from "./nav-links";
import { SignOutButton } from "./sign-out-button";

export function AppShell({
  nav,
  user,
  demoAccounts = [],
  children,
}: {
  nav: { href: string; label: string }[];
  user: { name: string; email: string; role: keyof typeof ROLE_LABELS };
  /** Admins only: demo accounts that still take their published passwords. */
  demoAccounts?: string[];
  children: ReactNode;
}) {
  return (
    <div className="flex min-h-screen">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2"
      >
        Skip to content
      </a>
      <aside className="sticky top-0 flex h-screen w-60 shrink-0 flex-col border-r border-slate-200 bg-white">
        <Link href="/ask" className="flex items-center gap-2 px-5 py-5 text-lg font-semibold">
          <span className="grid h-6 w-6 grid-cols-2 gap-0.5" aria-hidden>
            <span className="rounded-[2px] bg-brand-500" />
            <span className="rounded-[2px] bg-amber-400" />
            <span className="rounded-[2px] bg-emerald-500" />
            <span className="rounded-[2px] bg-rose-400" />
          </span>
          Mosaic
        </Link>
        <nav aria-label="Main" className="flex-1 px-3">
          <NavLinks items={nav} />
        </nav>
        <div className="border-t border-slate-200 px-5 py-4 text-sm">
          <p className="font-medium" data-testid="current-user-name">
            <Link href="/profile" className="hover:underline" title="Your profile and API keys">
              {user.name}
            </Link>
          </p>
          <p className="truncate text-slate-500">{user.email}</p>
          <p className="mt-1 inline-block rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600" data-testid="current-user-role">
            {ROLE_LABELS[user.role]}
          </p>
          <div className="mt-3">
            <SignOutButton />
          </div>
        </div>
      </aside>
      <div className="min-w-0 flex-1">
        <DemoAccountsBanner emails={demoAccounts} />
        <main id="main" className="px-8 py-8">
          <div className="mx-auto max-w-6xl">{children}</div>
        </main>
      </div>
    </div>
  );
}
