import type { Metadata } from "next";
import Link from "next/link";
import { KindBadge, StatusBadge } from "@/components/kb/status-badge";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { statsSummary } from "@/lib/catalog/display-labels";
import { listKnowledgeBases } from "@/lib/catalog/knowledge-bases";
import { db } from "@/lib/db/client";
import { count } from "@/lib/format/count";
import { rolesFor } from "@/lib/navigation";
import { DateTime } from "@/components/ui/locale";

export const metadata: Metadata = { title: "Knowledge bases" };

export default async function KnowledgeBasesPage() {
  const user = await requireRole(rolesFor("/knowledge-bases"), "/knowledge-bases");
  const kbs = await listKnowledgeBases(await db(), user);
  return (
    <>
      <PageHeader
        title="Knowledge bases"
        description="Every source Mosaic answers from, on its own engine: document collections, SQL databases, RDF graphs and Neo4j graphs."
        actions={
          <Link
            href="/knowledge-bases/new"
            className="rounded-md bg-brand-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-brand-700"
          >
            Register a knowledge base
          </Link>
        }
      />
      {kbs.length === 0 ? (
        <div className="rounded-lg border border-dashed border-slate-300 bg-white p-8 text-center">
          <p className="font-medium">No knowledge bases yet.</p>
          <p className="mt-1 text-sm text-slate-600">
            Register one to start answering questions: upload documents, a SQLite file or RDF, or connect PostgreSQL, a SPARQL endpoint or
            Neo4j.
          </p>
        </div>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
          <table className="w-full text-left text-sm" aria-label="Knowledge bases">
            <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="px-4 py-2">
                  Name
                </th>
                <th scope="col" className="px-4 py-2">
                  Kind
                </th>
                <th scope="col" className="px-4 py-2">
                  Health
                </th>
                <th scope="col" className="px-4 py-2">
                  Contents
                </th>
                <th scope="col" className="px-4 py-2">
                  Access
                </th>
              </tr>
            </thead>
            <tbody>
              {kbs.map((kb) => (
                <tr key={kb.id} className="border-b border-slate-100 last:border-0 align-top" data-testid={`kb-row-${kb.name}`}>
                  <td className="px-4 py-3">
                    <Link href={`/knowledge-bases/${kb.id}`} className="font-medium text-brand-700 hover:underline">
                      {kb.name}
                    </Link>
                    <div className="text-xs text-slate-500">{kb.connection}</div>
                  </td>
                  <td className="px-4 py-3">
                    <KindBadge kind={kb.kind} />
                  </td>
                  <td className="px-4 py-3">
                    <StatusBadge status={kb.status} title={kb.lastCheckMessage} />
                    {kb.lastCheckAt && (
                      <div className="text-xs text-slate-500">
                        checked <DateTime value={kb.lastCheckAt} />
                      </div>
                    )}
                  </td>
                  <td className="px-4 py-3 text-slate-600">
                    <div>{count(kb.sourceObjectCount, "source object")}</div>
                    <div className="text-xs text-slate-500" data-testid="kb-stats">
                      {statsSummary(kb.stats)}
                    </div>
                  </td>
                  <td className="px-4 py-3 text-slate-600">
                    {kb.openToEveryone
                      ? "Every signed-in user"
                      : kb.groups.length
                        ? kb.groups.map((g) => g.name).join(", ")
                        : "Admins only"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
