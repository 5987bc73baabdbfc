"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { setPrivilegeRiskAction } from "@/lib/actions/knowledge-bases";
import { unwrap } from "@/lib/actions/unwrap";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { DateTime } from "../ui/locale";

/**
 * What a PostgreSQL knowledge base's user may do beyond reading, on the knowledge base's page, for as
 * long as it holds: refused until an admin accepts the risk, then still shown with who accepted it.
 */
export function PrivilegeNotice({
  id,
  risks,
  acceptedAt,
  acceptedBy,
}: {
  id: string;
  risks: string[];
  acceptedAt: string | null;
  acceptedBy: string | null;
}) {
  const router = useRouter();
  const decide = useMutation({
    mutationFn: (accept: boolean) => unwrap(setPrivilegeRiskAction({ id, accept })),
    onSuccess: () => router.refresh(),
  });
  if (risks.length === 0) return null;
  const accepted = acceptedAt !== null;
  return (
    <section
      aria-labelledby="privileges-heading"
      className={`rounded-lg border p-4 text-sm ${accepted ? "border-amber-200 bg-amber-50" : "border-rose-200 bg-rose-50"}`}
      data-testid="kb-privileges"
    >
      <h2 id="privileges-heading" className="font-semibold">
        {accepted ? "This connection may do more than read (risk accepted)" : "Refused: this connection may do more than read"}
      </h2>
      <p className="mt-1">The database user:</p>
      <ul className="mt-1 list-disc pl-5">
        {risks.map((r) => (
          <li key={r}>{r}</li>
        ))}
      </ul>
      <p className="mt-2 text-slate-700">
        {accepted ? (
          <>
            Accepted by {acceptedBy ?? "an admin"} on <DateTime value={acceptedAt} />. Queries still only read, but a flaw in the checks
            would reach the data or the server. Connect with a user that may only read to remove this risk.
          </>
        ) : (
          "Queries to this knowledge base are refused. Connect with a user that may only read (GRANT SELECT on its tables), or accept the risk."
        )}
      </p>
      {decide.error && <Alert tone="error">{decide.error.message}</Alert>}
      <div className="mt-3">
        <Button variant={accepted ? "secondary" : "danger"} disabled={decide.isPending} onClick={() => decide.mutate(!accepted)}>
          {decide.isPending ? "Checking…" : accepted ? "Withdraw acceptance" : "Accept the risk"}
        </Button>
      </div>
    </section>
  );
}
