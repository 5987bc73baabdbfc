import type { Metadata } from "next";
import { AuditTable } from "@/components/audit/audit-table";
import { Field, SelectInput, TextInput } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { auditActions, listAuditEvents, parseAuditFilter } from "@/lib/audit/query";
import { auditRetentionDays } from "@/lib/audit/retention";
import { requireRole } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { rolesFor } from "@/lib/navigation";

export const metadata: Metadata = { title: "Audit log" };

const SHOWN = 200;

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requireRole(rolesFor("/audit"), "/audit");
  const filter = parseAuditFilter(await searchParams);
  const prisma = await db();
  const [{ rows, total }, actions, kbs, retention] = await Promise.all([
    listAuditEvents(prisma, filter, SHOWN),
    auditActions(prisma),
    prisma.knowledgeBase.findMany({ select: { id: true, name: true }, orderBy: { name: "asc" } }),
    auditRetentionDays(prisma),
  ]);
  const kbNames = Object.fromEntries(kbs.map((k) => [k.id, k.name]));
  const query = new URLSearchParams(Object.entries(filter).filter((e): e is [string, string] => !!e[1])).toString();
  return (
    <>
      <PageHeader
        title="Audit log"
        description={`Sign-ins, questions asked, evidence opened and every change, with who, when, from which address, and what changed. Records are kept ${retention} days (Settings).`}
        actions={
          <a
            href={`/api/admin/audit/export${query ? `?${query}` : ""}`}
            className="inline-flex items-center rounded-md border border-slate-300 bg-white px-3.5 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50"
            download
          >
            Export CSV
          </a>
        }
      />
      <form method="get" aria-label="Filter the audit log" className="mb-6 grid grid-cols-2 gap-3 md:grid-cols-6 md:items-end">
        <Field id="audit-actor" label="Actor (email)">
          <TextInput id="audit-actor" name="actor" defaultValue={filter.actor ?? ""} placeholder="name@company.com" />
        </Field>
        <Field id="audit-action" label="Action">
          <SelectInput id="audit-action" name="action" defaultValue={filter.action ?? ""}>
            <option value="">Any action</option>
            <option value="signin.">All sign-ins</option>
            <option value="kb.">All knowledge-base changes</option>
            {actions.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </SelectInput>
        </Field>
        <Field id="audit-kb" label="Knowledge base">
          <SelectInput id="audit-kb" name="kbId" defaultValue={filter.kbId ?? ""}>
            <option value="">Any</option>
            {kbs.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name}
              </option>
            ))}
          </SelectInput>
        </Field>
        <Field id="audit-from" label="From (UTC day)">
          <TextInput id="audit-from" name="from" type="date" defaultValue={filter.from ?? ""} />
        </Field>
        <Field id="audit-to" label="To (UTC day)">
          <TextInput id="audit-to" name="to" type="date" defaultValue={filter.to ?? ""} />
        </Field>
        <div className="flex gap-2">
          <button type="submit" className="rounded-md bg-brand-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-brand-700">
            Filter
          </button>
          <a href="/audit" className="rounded-md px-3 py-2 text-sm text-slate-600 hover:text-slate-900">
            Clear
          </a>
        </div>
      </form>
      <p className="mb-2 text-sm text-slate-600" data-testid="audit-count">
        {total === 0
          ? "No records match."
          : total > rows.length
            ? `The newest ${rows.length} of ${total} records (export for all).`
            : `${total} ${total === 1 ? "record" : "records"}.`}
      </p>
      <AuditTable rows={rows} kbNames={kbNames} />
    </>
  );
}
