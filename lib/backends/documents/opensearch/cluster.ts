import type { BackendContext, HealthResult } from "../../types";
import type { DocumentsConfig, DocumentsSecrets } from "../config";
import { OpenSearchCollection } from "./collection";
import { call, connectOpenSearch } from "./connection";
import { deleteIndexes } from "./layout";

/**
 * "Test connection" for a collection to be created in OpenSearch: the cluster answers, accepts the
 * credentials, and has the k-NN plugin (semantic search needs it; without it the collection would
 * still answer by keywords, so that is said, not refused).
 */
export async function checkOpenSearchCluster(config: DocumentsConfig, secrets: DocumentsSecrets): Promise<HealthResult> {
  const started = performance.now();
  let conn;
  try {
    conn = connectOpenSearch(config, secrets);
    const info = await call<{ version?: { number?: string; distribution?: string } }>(conn, "GET", "/");
    const plugins = await call<{ component: string }[]>(conn, "GET", "/_cat/plugins", undefined, { querystring: { format: "json" } });
    const knn = plugins.body.some((p) => /knn/i.test(p.component));
    const version = `${info.body.version?.distribution === "opensearch" || !info.body.version?.distribution ? "OpenSearch" : info.body.version.distribution} ${info.body.version?.number ?? "?"}`;
    return {
      ok: true,
      message: `Connected to ${version} at ${conn.url}${knn ? " (k-NN plugin present: keyword and semantic search)" : ". The k-NN plugin is missing: the collection will be searched by keywords only"}.`,
      latencyMs: performance.now() - started,
    };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e), latencyMs: performance.now() - started };
  } finally {
    await conn?.client.close();
  }
}

/** Deletes a collection's indexes (the KB was deleted, or its registration rolled back). */
export async function dropCollectionIndexes(config: DocumentsConfig, secrets: DocumentsSecrets, ctx: BackendContext): Promise<void> {
  const c = OpenSearchCollection.open(config, secrets, ctx);
  try {
    await deleteIndexes(c.conn, c.names);
  } finally {
    await c.close();
  }
}
