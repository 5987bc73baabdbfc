import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { getCurrentUser } from "@/lib/auth/session";
import { oidcConfigured } from "@/lib/auth/sso";
import { loadEnv } from "@/lib/env";
import { safeCallbackPath } from "@/lib/http/safe-redirect";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  // Only a path on this origin, as a browser would parse it: the form cannot be turned into an open redirect.
  const callbackUrl = safeCallbackPath(params.callbackUrl);
  if (await getCurrentUser()) redirect(callbackUrl);
  const env = loadEnv();
  const sso = oidcConfigured(env) ? { name: env.OIDC_NAME } : null;
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm">
        <div className="mb-8 text-center">
          <div className="mx-auto mb-3 grid h-12 w-12 grid-cols-2 gap-1" aria-hidden>
            <span className="rounded-sm bg-brand-500" />
            <span className="rounded-sm bg-amber-400" />
            <span className="rounded-sm bg-emerald-500" />
            <span className="rounded-sm bg-rose-400" />
          </div>
          <h1 className="text-2xl font-semibold">Sign in to Mosaic</h1>
          <p className="mt-1 text-sm text-slate-600">Answers from all your knowledge sources, with the evidence.</p>
        </div>
        <SignInForm
          callbackUrl={callbackUrl}
          initialError={typeof params.error === "string" ? params.error : undefined}
          sso={sso}
          passwordForm={!env.OIDC_ONLY}
        />
      </div>
    </main>
  );
}
