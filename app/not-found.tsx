import Link from "next/link";

export default function NotFound() {
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="max-w-md text-center">
        <p className="text-sm font-semibold text-slate-500">404 · Not found</p>
        <h1 className="mt-2 text-2xl font-semibold">This page does not exist</h1>
        <p className="mt-2 text-sm text-slate-600">Check the address, or go back to asking questions.</p>
        <Link href="/ask" className="mt-6 inline-block rounded-md bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700">
          Back to Ask
        </Link>
      </div>
    </main>
  );
}
