"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { clearSignInThrottlesAction } from "@/lib/actions/users";
import { unwrap } from "@/lib/actions/unwrap";
import type { SignInThrottleView } from "@/lib/auth/sign-in-throttle";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { DateTime } from "../ui/locale";

const KIND_LABELS: Record<SignInThrottleView["kind"], string> = {
  pair: "Account from one address",
  account: "Account, from anywhere",
  address: "Address, any account",
};

function who(t: SignInThrottleView): string {
  if (t.kind === "pair") return `${t.email} from ${t.address}`;
  return (t.kind === "account" ? t.email : t.address) ?? "—";
}

function nextAttempt(t: SignInThrottleView, shownAt: string) {
  if (!t.blockedUntil || t.blockedUntil <= shownAt) return "Now";
  return <DateTime value={t.blockedUntil} />;
}

/**
 * Sign-in throttles the admin can see and clear: failed attempts slow further attempts for an account,
 * an address, or an account from one address (lib/auth/sign-in-throttle.ts). Clearing lets someone
 * slowed by another person's attempts sign in at once.
 */
export function SignInThrottles({ initial, shownAt }: { initial: SignInThrottleView[]; shownAt: string }) {
  const [throttles, setThrottles] = useState(initial);
  const [message, setMessage] = useState<string | null>(null);
  const clear = useMutation({
    mutationFn: (keys?: string[]) => unwrap(clearSignInThrottlesAction({ keys })),
    onSuccess: (r) => {
      setThrottles(r.throttles);
      setMessage(`Cleared ${r.cleared} ${r.cleared === 1 ? "throttle" : "throttles"}.`);
    },
  });
  return (
    <section aria-labelledby="throttles-heading" className="mt-10 space-y-3">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="throttles-heading" className="text-lg font-semibold">
            Sign-in throttles
          </h2>
          <p className="text-sm text-slate-600">
            After repeated wrong passwords, further attempts wait a little longer each time (up to 15 minutes for one address, one minute
            for an account). The right password always works once the wait is over.
          </p>
        </div>
        {throttles.length > 0 && (
          <Button variant="secondary" disabled={clear.isPending} onClick={() => clear.mutate(undefined)}>
            Clear all
          </Button>
        )}
      </div>
      {clear.error && <Alert tone="error">{clear.error.message}</Alert>}
      {message && !clear.error && <Alert tone="success">{message}</Alert>}
      {throttles.length === 0 ? (
        <p className="rounded-lg border border-dashed border-slate-300 p-4 text-sm text-slate-600">
          No sign-in is being slowed down right now.
        </p>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
          <table className="w-full text-left text-sm" aria-label="Sign-in throttles">
            <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="px-4 py-2">
                  Counted for
                </th>
                <th scope="col" className="px-4 py-2">
                  Who
                </th>
                <th scope="col" className="px-4 py-2 text-right">
                  Failed attempts
                </th>
                <th scope="col" className="px-4 py-2">
                  Next attempt checked
                </th>
                <th scope="col" className="px-4 py-2">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {throttles.map((t) => (
                <tr key={t.key} data-testid="sign-in-throttle">
                  <td className="px-4 py-3 text-slate-600">{KIND_LABELS[t.kind]}</td>
                  <td className="px-4 py-3 break-words">{who(t)}</td>
                  <td className="px-4 py-3 text-right tabular-nums">{t.failures}</td>
                  <td className="px-4 py-3" suppressHydrationWarning>
                    {nextAttempt(t, shownAt)}
                  </td>
                  <td className="px-4 py-3 text-right">
                    <Button variant="ghost" className="text-xs" disabled={clear.isPending} onClick={() => clear.mutate([t.key])}>
                      Clear
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
