import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AddDocuments } from "@/components/kb/add-documents";
import { EmbeddingProgress } from "@/components/kb/embedding-progress";
import { MoveToOpenSearch } from "@/components/kb/move-to-opensearch";
import { CopyButton, KbActions, KbDeleteForm, KbSettingsForm } from "@/components/kb/kb-manage";
import { PrivilegeNotice } from "@/components/kb/privilege-notice";
import { Reindex } from "@/components/kb/reindex";
import { KindBadge, StatusBadge } from "@/components/kb/status-badge";
import { SourceObjectBrowser } from "@/components/source-objects/source-object-browser";
import { Alert } from "@/components/ui/alert";
import { requireRole } from "@/lib/auth/session";
import { collectionEmbeddingStatus } from "@/lib/ingest/documents/embedding-queue";
import { latestMove } from "@/lib/ingest/documents/move-to-opensearch";
import { latestReindex } from "@/lib/ingest/documents/reindex";
import { queuedUploads } from "@/lib/ingest/documents/upload-queue";
import { catalogDeps } from "@/lib/deps";
import { configLines, statLines } from "@/lib/catalog/display-labels";
import { getKnowledgeBase } from "@/lib/catalog/knowledge-bases";
import { listSourceObjects } from "@/lib/catalog/source-objects";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { rolesFor } from "@/lib/navigation";

export const metadata: Metadata = { title: "Knowledge base" };

export default async function KnowledgeBasePage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ warnings?: string }>;
}) {
  const { id } = await params;
  const user = await requireRole(rolesFor("/knowledge-bases"), `/knowledge-bases/${id}`);
  const prisma = await db();
  const kb = await getKnowledgeBase(prisma, user, id).catch((e) => {
    if (e instanceof AppError && e.code === "NOT_FOUND") notFound();
    throw e;
  });
  // A collection kept on this server can be moved to an OpenSearch cluster (an admin's job).
  const movable = kb.kind === "DOCUMENTS" && kb.config.engine !== "opensearch" && user.role === "ADMIN";
  // Admins add documents to a collection (queued, added in the background) and re-index one in OpenSearch.
  const addable = kb.kind === "DOCUMENTS" && user.role === "ADMIN";
  const reindexable = kb.kind === "DOCUMENTS" && kb.config.engine === "opensearch" && user.role === "ADMIN";
  const [objects, groups, embedding, move, uploads, reindex] = await Promise.all([
    listSourceObjects(prisma, user, { kbId: id }),
    prisma.group.findMany({ orderBy: { name: "asc" }, select: { id: true, name: true } }),
    kb.kind === "DOCUMENTS" ? collectionEmbeddingStatus(prisma, catalogDeps(), kb) : null,
    movable ? latestMove(prisma, kb.id) : null,
    addable ? queuedUploads(prisma, kb.id) : null,
    reindexable ? latestReindex(prisma, kb.id) : null,
  ]);
  const { warnings } = await searchParams;
  // Nested settings (an OpenSearch collection's cluster) are listed one per line, as "opensearch.url".
  const flat = Object.entries(kb.config)
    .filter(([k]) => k !== "file")
    .flatMap(([k, v]) =>
      v && typeof v === "object" && !Array.isArray(v) ? Object.entries(v).map(([kk, vv]) => [`${k}.${kk}`, vv]) : [[k, v]],
    );
  const config = configLines(Object.fromEntries(flat));
  return (
    <div className="space-y-8">
      <div>
        <Link href="/knowledge-bases" className="text-sm text-brand-700 hover:underline">
          ← Knowledge bases
        </Link>
        <header className="mt-2 flex flex-wrap items-start justify-between gap-4 border-b border-slate-200 pb-4">
          <div>
            <h1 className="text-2xl font-semibold tracking-tight">{kb.name}</h1>
            <p className="mt-1 flex flex-wrap items-center gap-3 text-sm text-slate-600">
              <KindBadge kind={kb.kind} /> <StatusBadge status={kb.status} title={kb.lastCheckMessage} /> <span>{kb.connection}</span>
            </p>
            {kb.lastCheckMessage && (
              <p className="mt-1 text-xs text-slate-500">
                Last check{kb.lastCheckAt ? ` (${new Date(kb.lastCheckAt).toLocaleString("en-GB")})` : ""}: {kb.lastCheckMessage}
              </p>
            )}
          </div>
          <KbActions id={kb.id} />
        </header>
      </div>
      <PrivilegeNotice id={kb.id} risks={kb.privilegeRisks} acceptedAt={kb.riskAcceptedAt} acceptedBy={kb.riskAcceptedBy} />
      {warnings && (
        <Alert tone="error">
          Registered, but some files were skipped:
          <ul className="mt-1 list-disc pl-5">
            {warnings.split("\n").map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </Alert>
      )}
      <div className="grid gap-8 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <section aria-labelledby="descriptor-heading" className="min-w-0">
          <div className="mb-2 flex items-center justify-between">
            <h2 id="descriptor-heading" className="text-lg font-semibold">
              Descriptor
            </h2>
            {kb.descriptor && <CopyButton text={kb.descriptor} label="Copy descriptor" />}
          </div>
          <p className="mb-2 text-xs text-slate-500">
            What the pipeline reads to write native queries for this source
            {kb.descriptorVersion ? ` · version ${kb.descriptorVersion}` : ""}
            {kb.describedAt ? ` · described ${new Date(kb.describedAt).toLocaleString("en-GB")}` : ""}.
          </p>
          {kb.descriptor ? (
            <pre
              className="max-h-[32rem] overflow-auto whitespace-pre-wrap rounded-lg bg-slate-900 p-4 text-xs leading-relaxed text-slate-100"
              data-testid="kb-descriptor"
            >
              {kb.descriptor}
            </pre>
          ) : (
            <p className="rounded-lg border border-dashed border-slate-300 p-4 text-sm text-slate-600">
              Not described yet. Check the connection, then choose Re-describe.
            </p>
          )}
        </section>
        <aside className="space-y-6">
          <section aria-labelledby="stats-heading" className="rounded-lg border border-slate-200 bg-white p-4 text-sm">
            <h2 id="stats-heading" className="mb-2 font-semibold">
              Contents
            </h2>
            <dl className="grid grid-cols-[1fr_auto] gap-x-3 gap-y-1" data-testid="kb-contents">
              {statLines(kb.stats).map((s) => (
                <div key={s.key} className="contents">
                  <dt className="text-slate-500">{s.label}</dt>
                  <dd className="text-right tabular-nums">{s.value === null ? "unknown" : s.value.toLocaleString("en")}</dd>
                </div>
              ))}
              <dt className="text-slate-500">Source objects</dt>
              <dd className="text-right tabular-nums">{kb.sourceObjectCount.toLocaleString("en")}</dd>
              <dt className="text-slate-500">Indexed entities</dt>
              <dd className="text-right tabular-nums">{kb.entityCount.toLocaleString("en")}</dd>
            </dl>
            {config.length > 0 && (
              <>
                <h3 className="mb-1 mt-4 font-semibold">Connection</h3>
                <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs">
                  {config.map((c) => (
                    <div key={c.key} className="contents">
                      <dt className="text-slate-500">{c.label}</dt>
                      <dd className="break-all">{c.value}</dd>
                    </div>
                  ))}
                  {kb.hasSecrets && (
                    <>
                      <dt className="text-slate-500">Password</dt>
                      <dd>stored encrypted</dd>
                    </>
                  )}
                </dl>
              </>
            )}
          </section>
          {embedding && <EmbeddingProgress kbId={kb.id} initial={embedding} />}
          {uploads && <AddDocuments kbId={kb.id} initial={uploads} />}
          {movable && <MoveToOpenSearch kbId={kb.id} initial={move} />}
          {reindexable && <Reindex kbId={kb.id} initial={reindex} />}
          <section aria-labelledby="settings-heading" className="rounded-lg border border-slate-200 bg-white p-4">
            <h2 id="settings-heading" className="mb-3 font-semibold">
              Settings and access
            </h2>
            <KbSettingsForm
              kb={{ id: kb.id, name: kb.name, description: kb.description, groupIds: kb.groups.map((g) => g.id) }}
              groups={groups}
            />
          </section>
          <section aria-labelledby="danger-heading" className="rounded-lg border border-rose-200 bg-white p-4">
            <h2 id="danger-heading" className="mb-3 font-semibold text-rose-800">
              Delete
            </h2>
            <KbDeleteForm id={kb.id} name={kb.name} />
          </section>
        </aside>
      </div>
      <section aria-labelledby="objects-heading">
        <h2 id="objects-heading" className="mb-3 text-lg font-semibold">
          Source objects
        </h2>
        <SourceObjectBrowser initial={objects} kbs={[{ id: kb.id, name: kb.name, kind: kb.kind }]} fixedKbId={kb.id} />
      </section>
    </div>
  );
}
