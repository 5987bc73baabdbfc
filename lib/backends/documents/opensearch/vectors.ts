import { BackendUnavailableError } from "../../errors";
import type { RowToEmbed, VectorState } from "../vectors";
import type { OpenSearchCollection } from "./collection";
import { call } from "./connection";
import { ensureVectorField, vectorField } from "./layout";
import type { UnitRecord } from "./store";

/**
 * The vectors of an OpenSearch collection, with the same contract as SQLite's vectors.ts: one vector
 * per unit (passage or table row), `meta.embedding_model` names the model that writes them, and a unit
 * counts as embedded only when its `vector_model` is that model. A new model does not need the old
 * vectors deleted: every unit whose `vector_model` differs is embedded again, and searches filter on
 * the model, so two models' vectors are never compared.
 */

const notModel = (model: string) => ({ bool: { must_not: [{ term: { vector_model: model } }] } });

export async function openSearchVectorState(c: OpenSearchCollection): Promise<VectorState> {
  const meta = await c.meta();
  const [rows, embedded] = await Promise.all([
    c.count(c.names.unitsAlias, { match_all: {} }),
    meta.embedding_model ? c.count(c.names.unitsAlias, { term: { vector_model: meta.embedding_model } }) : Promise.resolve(0),
  ]);
  return { model: meta.embedding_model, dimensions: meta.embedding_dimensions, rows, embedded };
}

/** Makes the collection take `model`'s vectors; true when it started over (another model or width held it). */
export async function prepareOpenSearchVectors(c: OpenSearchCollection, model: string, dimensions: number): Promise<boolean> {
  const meta = await c.meta();
  if (meta.embedding_model === model && meta.embedding_dimensions === dimensions) return false;
  await ensureVectorField(c.conn, c.names, dimensions);
  await c.setMeta({ embedding_model: model, embedding_dimensions: dimensions });
  return true;
}

/** The next units without a vector of `model`, in ingestion order, with the text SQLite would embed ("heading: body"). */
export async function openSearchRowsWithoutVectors(
  c: OpenSearchCollection,
  model: string,
  limit: number,
): Promise<(RowToEmbed & { id: string })[]> {
  const res = await c.search<Pick<UnitRecord, "heading" | "body">>(c.names.unitsAlias, {
    query: notModel(model),
    sort: [{ seq: "asc" }],
    size: limit,
    _source: ["heading", "body"],
  });
  return res.hits.hits.map((h, i) => ({
    id: h._id,
    rowid: i,
    text: h._source.heading ? `${h._source.heading}: ${h._source.body}` : h._source.body,
  }));
}

/**
 * Stores vectors for units that still exist (a document replaced meanwhile has new units; the old
 * ones are gone and their updates are dropped), only while the collection still belongs to `model`.
 * Refreshed before it returns, so the next step's query no longer finds them. Returns how many were stored.
 */
export async function storeOpenSearchVectors(
  c: OpenSearchCollection,
  model: string,
  vectors: { id: string; vector: Float32Array }[],
): Promise<number> {
  const meta = await c.meta();
  if (meta.embedding_model !== model || !vectors.length) return 0;
  const field = vectorField(meta.embedding_dimensions);
  const lines = vectors.flatMap(({ id, vector }) => [
    { update: { _index: c.names.unitsAlias, _id: id } },
    { doc: { [field]: Array.from(vector), vector_model: model } },
  ]);
  const res = await call<{ items: { update?: { status: number; error?: { type?: string; reason?: string } } }[] }>(
    c.conn,
    "POST",
    "/_bulk",
    undefined,
    {
      bulkBody: lines,
      querystring: { refresh: "true" },
    },
  );
  let stored = 0;
  for (const item of res.body.items) {
    const u = item.update;
    if (u && u.status < 300) stored++;
    else if (u && u.status !== 404)
      throw new BackendUnavailableError(
        `OpenSearch at ${c.conn.url} did not store a vector: ${u.error?.type ?? u.status}${u.error?.reason ? ` (${u.error.reason})` : ""}.`,
      );
  }
  return stored;
}
