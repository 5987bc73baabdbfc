import { type DocumentsConfig, documentsSecretsSchema } from "../../backends/documents/config";
import { META_ID } from "../../backends/documents/opensearch/collection";
import { call, connectOpenSearch, type OpenSearchConnection } from "../../backends/documents/opensearch/connection";
import { collectionIndexes, createLayoutIndex, indexesBehind, LAYOUT_VERSION } from "../../backends/documents/opensearch/layout";
import { closeBackend, parseKbConfig } from "../../backends/registry";
import { refreshKnowledgeBase } from "../refresh";
import { decryptSecrets } from "../../crypto/secrets";
import { type JobContext, JobFailedError, type JobResult, JobSkippedError } from "../../jobs/define";
import { fmt } from "./reindex";

const POLL_MS = 500;

async function countOf(conn: OpenSearchConnection, index: string): Promise<number> {
  return (await call<{ count: number }>(conn, "GET", `/${index}/_count`)).body.count;
}

/** The vector fields an index already has (one per embedding width), to carry into the new mapping. */
async function vectorFields(conn: OpenSearchConnection, index: string): Promise<Record<string, unknown>> {
  const res = await call<Record<string, { mappings?: { properties?: Record<string, { type?: string }> } }>>(
    conn,
    "GET",
    `/${index}/_mapping`,
  );
  const properties = Object.values(res.body)[0]?.mappings?.properties ?? {};
  return Object.fromEntries(Object.entries(properties).filter(([name, p]) => name.startsWith("vector_") && p.type === "knn_vector"));
}

interface TaskStatus {
  completed: boolean;
  task: { status: { total: number; created: number; updated: number } };
  response?: { failures?: { cause?: { type?: string; reason?: string } }[] };
  error?: { type?: string; reason?: string };
}

/** Copies one index into another with the cluster's _reindex, reporting its counts while it runs. */
async function copyIndex(
  conn: OpenSearchConnection,
  from: string,
  to: string,
  onProgress: (copied: number) => Promise<void>,
  signal: AbortSignal,
): Promise<number> {
  const started = await call<{ task: string }>(
    conn,
    "POST",
    "/_reindex",
    { source: { index: from, size: 500 }, dest: { index: to } },
    { querystring: { wait_for_completion: false, refresh: true } },
  );
  const task = started.body.task;
  for (;;) {
    const res = await call<TaskStatus>(conn, "GET", `/_tasks/${encodeURIComponent(task)}`);
    const s = res.body.task.status;
    const copied = s.created + s.updated;
    if (res.body.completed) {
      const failure = res.body.error ?? res.body.response?.failures?.[0]?.cause;
      if (failure)
        throw new JobFailedError(
          `OpenSearch could not copy ${from} into the new index (${failure.type ?? "error"}${failure.reason ? `: ${failure.reason}` : ""}); the collection keeps its current index.`,
        );
      return copied;
    }
    await onProgress(copied);
    if (signal.aborted) {
      await call(conn, "POST", `/_tasks/${encodeURIComponent(task)}/_cancel`, undefined, { ignore: [404] });
      throw signal.reason instanceof Error ? signal.reason : new Error("stopped");
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export async function reindexCollection(ctx: JobContext<{ kbId: string }>): Promise<JobResult> {
  const { prisma, deps } = ctx.services;
  const kb = await prisma.knowledgeBase.findUnique({
    where: { id: ctx.payload.kbId },
    select: { id: true, name: true, kind: true, config: true, secretsCiphertext: true },
  });
  if (!kb) throw new JobSkippedError("The knowledge base was deleted.");
  const config = parseKbConfig(kb.kind, kb.config) as DocumentsConfig;
  if (kb.kind !== "DOCUMENTS" || config.engine !== "opensearch")
    throw new JobFailedError(`${kb.name} is not a collection in OpenSearch: there is nothing to re-index.`);
  const secrets = documentsSecretsSchema.parse(kb.secretsCiphertext ? decryptSecrets(kb.secretsCiphertext, deps.encryptionKey) : {});
  const conn = connectOpenSearch(config, secrets);
  try {
    const names = collectionIndexes(conn.settings, kb.id);
    const suffix = ctx.jobId
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "")
      .slice(-12);
    const pairs = [
      { which: "content" as const, alias: names.contentAlias, next: `${names.contentAlias}-v${LAYOUT_VERSION}-${suffix}` },
      { which: "units" as const, alias: names.unitsAlias, next: `${names.unitsAlias}-v${LAYOUT_VERSION}-${suffix}` },
    ];
    const plan = [];
    for (const p of pairs) {
      const current = await indexesBehind(conn, p.alias);
      if (current.length !== 1) {
        throw new JobFailedError(
          current.length
            ? `The collection's alias ${p.alias} leads to ${current.length} indexes; remove the extra ones, then re-index.`
            : `OpenSearch at ${conn.url} has no index "${p.alias}" to re-index from: upload the documents again to rebuild the collection.`,
        );
      }
      plan.push({ ...p, current: current[0]! });
    }
    if (plan.every((p) => p.current === p.next)) return { message: "The collection was already re-indexed by this job." };

    // A resumed attempt starts its copy over: the new indexes are nobody's yet.
    await call(conn, "DELETE", `/${plan.map((p) => p.next).join(",")}`, undefined, {
      ignore: [404],
      querystring: { ignore_unavailable: true },
    });
    const versionBefore = await contentVersion(conn, names.contentAlias);
    const totals = await Promise.all(plan.map((p) => countOf(conn, p.current)));
    const total = totals.reduce((a, b) => a + b, 0);
    await ctx.progress({ done: 0, total, message: `Re-indexing ${fmt(total)} records into a new index.` });
    let copiedBefore = 0;
    for (const p of plan) {
      await createLayoutIndex(conn, p.next, p.which, p.which === "units" ? await vectorFields(conn, p.current) : {});
      const say = (copied: number) =>
        ctx.progress({
          done: copiedBefore + copied,
          total,
          message: `Re-indexing: ${fmt(copiedBefore + copied)} of ${fmt(total)} records copied.`,
        });
      copiedBefore += await copyIndex(conn, p.current, p.next, say, ctx.signal);
    }

    await ctx.progress({ done: copiedBefore, total, message: "Checking the new index before switching to it." });
    await call(conn, "POST", `/${plan.map((p) => p.next).join(",")}/_refresh`);
    for (const [i, p] of plan.entries()) {
      const copied = await countOf(conn, p.next);
      if (copied !== totals[i])
        throw new JobFailedError(
          `The new index holds ${fmt(copied)} records instead of ${fmt(totals[i]!)}; the collection keeps its current index. Re-index again.`,
        );
    }
    const meta = await call(conn, "GET", `/${plan[0]!.next}/_doc/${META_ID}`, undefined, { ignore: [404] });
    if (meta.status === 404)
      throw new JobFailedError("The new index lacks the collection's settings record; the collection keeps its current index.");
    if ((await contentVersion(conn, names.contentAlias)) !== versionBefore) {
      // Documents were added while the copy ran: the next attempt copies them too.
      throw new Error("Documents were added while the collection was being re-indexed; it is re-indexed again to include them.");
    }

    // The switch: both aliases move in one request, so readers see the old pair or the new one.
    await call(conn, "POST", "/_aliases", {
      actions: plan.flatMap((p) => [{ remove: { index: p.current, alias: p.alias } }, { add: { index: p.next, alias: p.alias } }]),
    });
    await call(conn, "DELETE", `/${plan.map((p) => p.current).join(",")}`, undefined, { ignore: [404] });
  } finally {
    await conn.client.close();
  }
  await closeBackend(kb.id);
  const refreshed = await refreshKnowledgeBase(prisma, deps, kb.id);
  return {
    message: `Re-indexed with index layout ${LAYOUT_VERSION}; the previous indexes were removed. ${refreshed.message}`.slice(0, 500),
  };
}

async function contentVersion(conn: OpenSearchConnection, alias: string): Promise<number> {
  const res = await call<{ _source?: { content_version?: number } }>(conn, "GET", `/${alias}/_doc/${META_ID}`, undefined, {
    ignore: [404],
  });
  return res.body._source?.content_version ?? -1;
}
