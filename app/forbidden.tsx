import Link from "next/link";

// Rendered with HTTP 403 by forbidden() (lib/auth/session.ts), inside the workspace shell when signed in.
export default function Forbidden() {
  return (
    <section className="flex min-h-[60vh] items-center justify-center px-4" aria-labelledby="forbidden-heading">
      <div className="max-w-md text-center">
        <p className="text-sm font-semibold text-rose-700">403 · Forbidden</p>
        <h1 id="forbidden-heading" className="mt-2 text-2xl font-semibold">
          You don’t have access to this page
        </h1>
        <p className="mt-2 text-sm text-slate-600">
          Your role does not include this area. If you need it, ask a workspace admin to change your role.
        </p>
        <Link href="/ask" className="mt-6 inline-block rounded-md bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700">
          Back to Ask
        </Link>
      </div>
    </section>
  );
}
