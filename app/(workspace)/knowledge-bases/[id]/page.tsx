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
import { configLines, statLines, statsSummary } from "@/lib/catalog/display-labels";
import { listKbDocuments } from "@/lib/catalog/collection-documents";
import { CollectionDocuments } from "@/components/kb/collection-documents";
import { DateTime } from "@/components/ui/locale";
import { requestLocale } from "@/components/ui/request-locale";
import { loadEnv } from "@/lib/env";
import { log } from "@/lib/log";
import { formatInteger } from "@/lib/format/number";
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
  // A collection kept on this server can be moved to an OpenSearch cluster (an admin's job), offered
  // only where this server is configured with one: no OpenSearch panel on a server without a cluster.
  const movable = kb.kind === "DOCUMENTS" && kb.config.engine !== "opensearch" && user.role === "ADMIN" && Boolean(loadEnv().SEARCH_URL);
  // Admins add documents to a collection (queued, added in the background) and re-index one in OpenSearch.
  const addable = kb.kind === "DOCUMENTS" && user.role === "ADMIN";
  const reindexable = kb.kind === "DOCUMENTS" && kb.config.engine === "opensearch" && user.role === "ADMIN";
  const locale = await requestLocale();
  const [objects, groups, embedding, move, uploads, reindex, documents] = await Promise.all([
    listSourceObjects(prisma, user, { kbId: id }),
    prisma.group.findMany({ orderBy: { name: "asc" }, select: { id: true, name: true } }),
    kb.kind === "DOCUMENTS" ? collectionEmbeddingStatus(prisma, catalogDeps(), kb) : null,
    movable ? latestMove(prisma, kb.id) : null,
    addable ? queuedUploads(prisma, kb.id) : null,
    reindexable ? latestReindex(prisma, kb.id) : null,
    kb.kind === "DOCUMENTS"
      ? listKbDocuments(prisma, catalogDeps(), user, kb.id).catch((e: unknown) => {
          if (e instanceof AppError) return { error: e.message };
          log.error({ err: e, kbId: kb.id }, "listing a collection's documents failed");
          return { error: "The collection's documents could not be read; the server log says why." };
        })
      : null,
  ]);
  const { warnings } = await searchParams;
  // Nested settings (an OpenSearch collection's cluster) are listed one per line, as "opensearch.url".
  const flat = Object.entries(kb.config)
    .filter(([k]) => k !== "file")
    .flatMap(([k, v]) =>
      v && typeof v === "object" && !Array.isArray(v) ? Object.entries(v).map(([kk, vv]) => [`${k}.${kk}`, vv]) : [[k, v]],
    );
  const config = configLines(Object.fromEntries(flat));
  const size = statsSummary(kb.stats, 4);
  const isCollection = kb.kind === "DOCUMENTS";
  return (
    <div className="space-y-8">
      <div>
        <Link href="/knowledge-bases" className="text-sm text-brand-700 hover:underline">
          ← Knowledge bases
        </Link>
        <header className="mt-2 flex flex-wrap items-start justify-between gap-4 border-b border-slate-200 pb-4">
          <div className="min-w-0">
            <h1 className="text-2xl font-semibold tracking-tight">{kb.name}</h1>
            <p className="mt-1 flex flex-wrap items-center gap-3 text-sm text-slate-600">
              <KindBadge kind={kb.kind} /> <span className="break-all">{kb.connection}</span>
            </p>
            {kb.description && <p className="mt-2 max-w-3xl text-sm text-slate-700">{kb.description}</p>}
          </div>
          <KbActions id={kb.id} />
        </header>
      </div>
      <dl className="grid gap-4 sm:grid-cols-3" data-testid="kb-overview">
        <div className="rounded-lg border border-slate-200 bg-white p-4">
          <dt className="text-xs font-semibold uppercase tracking-wide text-slate-500">Health</dt>
          <dd className="mt-1 text-sm">
            <StatusBadge status={kb.status} />
            {kb.lastCheckMessage && <p className="mt-1 text-xs text-slate-600">{kb.lastCheckMessage}</p>}
            {kb.lastCheckAt && (
              <p className="mt-1 text-xs text-slate-500">
                Checked <DateTime value={kb.lastCheckAt} />
              </p>
            )}
          </dd>
        </div>
        <div className="rounded-lg border border-slate-200 bg-white p-4">
          <dt className="text-xs font-semibold uppercase tracking-wide text-slate-500">Size</dt>
          <dd className="mt-1 text-sm text-slate-800" data-testid="kb-size">
            {size || "Not described yet"}
          </dd>
        </div>
        <div className="rounded-lg border border-slate-200 bg-white p-4">
          <dt className="text-xs font-semibold uppercase tracking-wide text-slate-500">Who may use it</dt>
          <dd className="mt-1 text-sm text-slate-800" data-testid="kb-access">
            {kb.openToEveryone
              ? "Every signed-in user"
              : kb.groups.length === 0
                ? "Admins only (private until you choose groups or every signed-in user)"
                : `Admins and the members of ${kb.groups.map((g) => g.name).join(", ")}`}
          </dd>
        </div>
      </dl>
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
      {isCollection && (
        <div className="grid gap-8 lg:grid-cols-[minmax(0,1fr)_22rem]">
          <div className="min-w-0">
            {documents && (
              <section aria-labelledby="documents-heading">
                <h2 id="documents-heading" className="mb-3 text-lg font-semibold">
                  Documents
                </h2>
                {"error" in documents ? (
                  <Alert tone="error">{documents.error}</Alert>
                ) : (
                  <CollectionDocuments
                    kbId={kb.id}
                    documents={documents.documents}
                    more={documents.more}
                    canRemove={user.role === "ADMIN"}
                  />
                )}
              </section>
            )}
          </div>
          <aside className="space-y-6">
            {uploads && <AddDocuments kbId={kb.id} initial={uploads} />}
            {embedding && <EmbeddingProgress kbId={kb.id} initial={embedding} />}
          </aside>
        </div>
      )}
      <section aria-labelledby="objects-heading">
        <h2 id="objects-heading" className="mb-1 text-lg font-semibold">
          {isCollection ? "Tables and text" : kb.kind === "SQL" ? "Tables" : "Source objects"}
        </h2>
        <p className="mb-3 text-xs text-slate-500">
          {isCollection
            ? "The collection's text and each table found in its documents, as analysts curate and preview them."
            : "What this source holds, each with its own preview."}
        </p>
        <SourceObjectBrowser initial={objects} kbs={[{ id: kb.id, name: kb.name, kind: kb.kind }]} fixedKbId={kb.id} />
      </section>
      <div className="grid gap-8 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="min-w-0">
          <details className="rounded-lg border border-slate-200 bg-white p-4" data-testid="kb-descriptor-section">
            <summary className="cursor-pointer text-sm font-semibold">Descriptor</summary>
            <div className="mt-3">
              <div className="mb-2 flex items-center justify-between gap-2">
                <p className="text-xs text-slate-500">
                  What the pipeline reads to write native queries for this source
                  {kb.descriptorVersion ? ` · version ${kb.descriptorVersion}` : ""}
                  {kb.describedAt ? (
                    <>
                      {" "}
                      · described <DateTime value={kb.describedAt} />
                    </>
                  ) : null}
                  .
                </p>
                {kb.descriptor && <CopyButton text={kb.descriptor} label="Copy descriptor" />}
              </div>
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
            </div>
          </details>
        </div>
        <aside className="space-y-6">
          <section aria-labelledby="stats-heading" className="rounded-lg border border-slate-200 bg-white p-4 text-sm">
            <h2 id="stats-heading" className="mb-2 font-semibold">
              Contents
            </h2>
            <dl className="grid grid-cols-[1fr_auto] gap-x-3 gap-y-1" data-testid="kb-contents">
              {statLines(kb.stats).map((s) => (
                <div key={s.key} className="contents">
                  <dt className="text-slate-500">{s.label}</dt>
                  <dd className="text-right tabular-nums">{s.value === null ? "not counted" : formatInteger(s.value, locale)}</dd>
                </div>
              ))}
              <dt className="text-slate-500">Source objects</dt>
              <dd className="text-right tabular-nums">{formatInteger(kb.sourceObjectCount, locale)}</dd>
              <dt className="text-slate-500">Indexed names</dt>
              <dd className="text-right tabular-nums">{formatInteger(kb.entityCount, locale)}</dd>
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
          {movable && <MoveToOpenSearch kbId={kb.id} initial={move} />}
          {reindexable && <Reindex kbId={kb.id} initial={reindex} />}
          <section aria-labelledby="settings-heading" className="rounded-lg border border-slate-200 bg-white p-4">
            <h2 id="settings-heading" className="mb-3 font-semibold">
              Settings and access
            </h2>
            <KbSettingsForm
              kb={{
                id: kb.id,
                name: kb.name,
                description: kb.description,
                groupIds: kb.groups.map((g) => g.id),
                openToEveryone: kb.openToEveryone,
              }}
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
    </div>
  );
}
