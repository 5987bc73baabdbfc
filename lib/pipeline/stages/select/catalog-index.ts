import { Bm25Index } from "../../bm25";
import { type CatalogEntry, type CatalogSourceObject, catalogEntryVersion } from "../../../catalog/snapshot";
import { identifierWords } from "../../scorers/piece-text";

/**
 * BM25 indexes over a catalog, built once per catalog content and reused across questions: one
 * document per KB (name, description, descriptor) and one per source object (name, description, tags).
 */
export interface CatalogIndex {
  entries: CatalogEntry[];
  entryOf: Map<string, number>;
  kbs: Bm25Index;
  objects: Bm25Index;
  /** objects' document i belongs to entries[objectRefs[i].entry]. */
  objectRefs: { entry: number; object: CatalogSourceObject }[];
}

/**
 * Descriptors name tables and columns as code ("Song_release_year", "releaseYear"); identifierWords
 * splits them. The KB name is repeated: it is what the owner chose to call the source, a stronger statement of
 * its subject than any one column name in a long descriptor (a light BM25F-style field weight).
 */
export function kbDocument(entry: CatalogEntry): string {
  return identifierWords([entry.kbName, entry.kbName, entry.description, entry.descriptor].join("\n"));
}

/** A source object's name is repeated for the same reason as the KB name. */
export function objectDocument(object: CatalogSourceObject): string {
  return identifierWords([object.name, object.name, object.description, object.tags.join(" ")].join("\n"));
}

export function buildCatalogIndex(entries: CatalogEntry[]): CatalogIndex {
  const objectRefs = entries.flatMap((entry, i) => entry.sourceObjects.map((object) => ({ entry: i, object })));
  return {
    entries,
    entryOf: new Map(entries.map((e, i) => [e.kbId, i])),
    kbs: new Bm25Index(entries.map(kbDocument)),
    objects: new Bm25Index(objectRefs.map((r) => objectDocument(r.object))),
    objectRefs,
  };
}

// ---------------------------------------------------------------------------------------------
// Reuse: the catalog snapshot returns the same array while nothing changed (fast path); callers that
// rebuild entries get the index back through a content signature.

const byArray = new WeakMap<CatalogEntry[], CatalogIndex>();
const bySignature = new Map<string, CatalogIndex>();
const fingerprints = new WeakMap<CatalogEntry, string>();
/** A handful of access sets (catalog subsets) are live at once; each index is a few MB at most. */
const MAX_INDEXES = 8;

function versionOf(entry: CatalogEntry): string {
  if (entry.version) return entry.version;
  let fp = fingerprints.get(entry);
  if (!fp) {
    fp = catalogEntryVersion(entry);
    fingerprints.set(entry, fp);
  }
  return fp;
}

export function catalogIndexFor(entries: CatalogEntry[]): CatalogIndex {
  const cached = byArray.get(entries);
  if (cached) return cached;
  const signature = entries.map((e) => `${e.kbId}:${versionOf(e)}`).join(",");
  let index = bySignature.get(signature);
  if (index) {
    bySignature.delete(signature);
  } else {
    index = buildCatalogIndex(entries);
  }
  bySignature.set(signature, index);
  while (bySignature.size > MAX_INDEXES) bySignature.delete(bySignature.keys().next().value!);
  byArray.set(entries, index);
  return index;
}
