import { createHash } from "node:crypto";
import type { KbKind, SourceContentType } from "../backends/types";
import type { PrismaClient } from "../db/generated/client";
import { hasTableNotes, readTableNotes, type TableNotes } from "./table-notes";

/**
 * What source selection reads about each KB the user may use: its descriptor c_b (compact form when
 * the KB has one, since a catalog of ~175 KBs is searched per question) and its source objects.
 */
export interface CatalogSourceObject {
  key: string;
  name: string;
  description: string;
  tags: string[];
  contentType: SourceContentType;
  /** A table's column synonyms, descriptions and measures an analyst gave (table-notes.ts); absent when none. */
  notes?: TableNotes;
}

export interface CatalogEntry {
  kbId: string;
  kbName: string;
  kind: KbKind;
  description: string;
  /** descriptorCompact when available, else the full descriptor, else "". */
  descriptor: string;
  sourceObjects: CatalogSourceObject[];
  /**
   * Changes whenever what selection reads changes (a hash of the content). Lets select reuse the
   * BM25 indexes it built over a catalog; entries built by hand may omit it (select fingerprints them).
   */
  version?: string;
}

/** Hash of everything selection reads from an entry: equal content, equal version. */
export function catalogEntryVersion(entry: Omit<CatalogEntry, "version">): string {
  const h = createHash("sha256");
  h.update(JSON.stringify([entry.kbId, entry.kbName, entry.kind, entry.description, entry.descriptor]));
  for (const o of entry.sourceObjects) h.update(JSON.stringify([o.key, o.name, o.description, o.tags, o.contentType, o.notes ?? null]));
  return h.digest("hex").slice(0, 16);
}

interface CachedEntry {
  /** KB updatedAt + descriptorVersion + source objects' count and newest updatedAt. */
  stamp: string;
  entry: CatalogEntry;
}

interface SnapshotCache {
  entries: Map<string, CachedEntry>;
  /** Recent results by (kbIds, versions): an unchanged catalog returns the same array, so indexes keyed on it are reused. */
  snapshots: Map<string, CatalogEntry[]>;
}

/** A few access sets (users in different groups) are live at once; older snapshot arrays are dropped. */
const MAX_SNAPSHOTS = 16;

// Keyed by client: tests open several databases in one process, and ids never cross databases.
const caches = new WeakMap<PrismaClient, SnapshotCache>();

function cacheFor(prisma: PrismaClient): SnapshotCache {
  let cache = caches.get(prisma);
  if (!cache) {
    cache = { entries: new Map(), snapshots: new Map() };
    caches.set(prisma, cache);
  }
  return cache;
}

/**
 * The catalog entries of `kbIds` (the caller has applied access rules), in the order given; unknown
 * ids are skipped. Two small queries find which KBs changed since the last call; only those are
 * re-read, so asking per question does not re-read 175 descriptors and thousands of source objects.
 */
export async function loadCatalogSnapshot(prisma: PrismaClient, kbIds: string[]): Promise<CatalogEntry[]> {
  const ids = [...new Set(kbIds)];
  if (!ids.length) return [];
  const cache = cacheFor(prisma);

  const [kbStamps, objectStamps] = await Promise.all([
    prisma.knowledgeBase.findMany({ where: { id: { in: ids } }, select: { id: true, updatedAt: true, descriptorVersion: true } }),
    prisma.sourceObject.groupBy({ by: ["kbId"], where: { kbId: { in: ids } }, _count: { _all: true }, _max: { updatedAt: true } }),
  ]);
  const objectStampOf = new Map(objectStamps.map((o) => [o.kbId, `${o._count._all}@${o._max.updatedAt?.toISOString() ?? ""}`]));
  const stamps = new Map(
    kbStamps.map((k) => [k.id, `${k.updatedAt.toISOString()}|${k.descriptorVersion ?? ""}|${objectStampOf.get(k.id) ?? "0"}`]),
  );

  const stale = [...stamps].filter(([id, stamp]) => cache.entries.get(id)?.stamp !== stamp).map(([id]) => id);
  if (stale.length) await reloadEntries(prisma, cache, stale, stamps);
  for (const id of ids) if (!stamps.has(id)) cache.entries.delete(id);

  const entries = ids.map((id) => (stamps.has(id) ? cache.entries.get(id)?.entry : undefined)).filter((e): e is CatalogEntry => !!e);
  const signature = entries.map((e) => `${e.kbId}:${e.version}`).join(",");
  const previous = cache.snapshots.get(signature);
  if (previous) {
    // Refresh its recency so the live access sets stay cached.
    cache.snapshots.delete(signature);
    cache.snapshots.set(signature, previous);
    return previous;
  }
  cache.snapshots.set(signature, entries);
  while (cache.snapshots.size > MAX_SNAPSHOTS) cache.snapshots.delete(cache.snapshots.keys().next().value!);
  return entries;
}

async function reloadEntries(prisma: PrismaClient, cache: SnapshotCache, kbIds: string[], stamps: Map<string, string>) {
  const [kbs, objects] = await Promise.all([
    prisma.knowledgeBase.findMany({
      where: { id: { in: kbIds } },
      select: { id: true, name: true, kind: true, description: true, descriptor: true, descriptorCompact: true },
    }),
    prisma.sourceObject.findMany({
      where: { kbId: { in: kbIds } },
      select: { kbId: true, key: true, name: true, description: true, tags: true, contentType: true, annotations: true },
      orderBy: [{ kbId: "asc" }, { key: "asc" }],
    }),
  ]);
  const objectsOf = new Map<string, CatalogSourceObject[]>();
  for (const o of objects) {
    const list = objectsOf.get(o.kbId) ?? [];
    const notes = readTableNotes(o.annotations);
    list.push({
      key: o.key,
      name: o.name,
      description: o.description,
      tags: o.tags,
      contentType: o.contentType as SourceContentType,
      ...(hasTableNotes(notes) ? { notes } : {}),
    });
    objectsOf.set(o.kbId, list);
  }
  for (const kb of kbs) {
    const content = {
      kbId: kb.id,
      kbName: kb.name,
      kind: kb.kind as KbKind,
      description: kb.description,
      descriptor: kb.descriptorCompact || kb.descriptor || "",
      sourceObjects: objectsOf.get(kb.id) ?? [],
    };
    const entry: CatalogEntry = { ...content, version: catalogEntryVersion(content) };
    cache.entries.set(kb.id, { stamp: stamps.get(kb.id) ?? "", entry });
  }
}
