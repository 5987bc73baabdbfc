"use client";

import { Button } from "@/components/ui/button";

// Server details never reach the browser: Next.js sends only a digest, which the server log carries too.
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main className="flex min-h-[60vh] items-center justify-center px-4">
      <div className="max-w-md text-center">
        <h1 className="text-xl font-semibold">Something went wrong</h1>
        <p className="mt-2 text-sm text-slate-600">
          The page could not be shown. Try again; if it keeps failing, give an admin this reference:{" "}
          <code className="rounded bg-slate-100 px-1">{error.digest ?? "none"}</code>
        </p>
        <Button className="mt-4" onClick={reset}>
          Try again
        </Button>
      </div>
    </main>
  );
}
