import type { PrismaClient } from "../db/generated/client";
import { distance } from "fastest-levenshtein";
import { Prisma } from "../db/generated/client";
import type { EntityLink } from "./contracts";
import { normalizeLabel } from "./text";

/**
 * Entity linking against the labels the registered KBs index (`EntityLabel`, filled from each
 * backend's entityIndex()). Understand asks for many candidate mentions at once; an implementation
 * answers with ranked links per mention, so a whole question costs one or two round trips.
 */
export interface EntityLookupOptions {
  /**
   * Mentions that may also match labels starting with them ("Summit 2" → "Summit 2 Tent"). Only
   * mentions of at least 2 words or 4 characters are ever tried. Default: every such mention.
   */
  prefix?: (mention: string) => boolean;
  /**
   * Mentions that may also match labels containing them as whole words ("Lindqvist" → "Maria
   * Lindqvist"), tried only when exact and prefix matching found nothing. Without a text index this
   * is a scan of the label table, so an implementation may skip it on large catalogs. Default: none.
   * The same mentions, when still unlinked after that, are matched fuzzily (a slip of one or two
   * letters: "Brazl" → "Brazil"), against labels of about their length that begin as they do.
   */
  contains?: (mention: string) => boolean;
  /**
   * Mentions that may be matched fuzzily when nothing else linked them. Default: the `contains`
   * mentions. Understand also asks it for misspelt question words ("oders" → "orders").
   */
  fuzzy?: (mention: string) => boolean;
}

export interface EntityLookup {
  /** Links per mention (keyed by the mention exactly as given), best first, at most `limitPerMention`. */
  find(mentions: string[], kbIds: string[], limitPerMention?: number, options?: EntityLookupOptions): Promise<Map<string, EntityLink[]>>;
}

/** One indexed label, as stored in `EntityLabel`. */
export interface LabelRow {
  kbId: string;
  label: string;
  /** normalizeLabel(label), the indexed lookup key. */
  normalized: string;
  kind: string;
  ref: string;
  sourceObject: string | null;
}

export const DEFAULT_LINKS_PER_MENTION = 10;
/**
 * Beyond the best `limit` links of a mention, each further KB keeps its own best link, up to this many
 * links in all: a value many KBs hold ("USA") still links into each of them, so every candidate source
 * can filter on it (without it, the first ten KBs by id took every slot).
 */
export const MAX_LINKS_ACROSS_KBS = 40;
/** Rows read per label and KB: the same label in several columns of one KB ("Country" in two tables). */
const ROWS_PER_LABEL_AND_KB = 5;
/** Links weaker than this are noise (a one-word mention inside a seven-word caption). */
export const MIN_LINK_SCORE = 0.3;
/** A singular/plural variant of the mention's last word matched ("tent" ~ "Tents"). */
const INFLECTION_SCORE = 0.9;
/** Partial matches are capped below an inflection match, then scaled by word overlap. */
const PARTIAL_WEIGHT = 0.85;
/** A fuzzy match (a letter or two apart) counts for less than an exact or inflected one, about as much as a partial one. */
const FUZZY_WEIGHT = 0.75;
/**
 * Letters that must agree at the start of a fuzzy match: a slip in the first letter is rare, and the
 * first letter narrows the candidates to an index range. The labels sharing the first two letters are
 * read as a second, narrower range, so a common first letter cannot crowd out the likeliest candidates.
 */
const FUZZY_FIXED_PREFIX = 1;
const FUZZY_NARROW_PREFIX = 2;
/** Candidate labels read per fuzzy mention. */
const FUZZY_ROWS = 2000;
const MAX_MENTIONS = 400;
const MAX_MENTION_CHARS = 200;
const MIN_PARTIAL_CHARS = 4;

function wordCount(normalized: string): number {
  return normalized ? normalized.split(" ").length : 0;
}

/** Whether a (normalized) mention is specific enough for prefix/containment matching. */
export function allowsPartialMatch(normalized: string): boolean {
  return wordCount(normalized) >= 2 || normalized.length >= MIN_PARTIAL_CHARS;
}

/**
 * The singular/plural form of the last word, so "Summit 2 Tents" finds "Summit 2 Tent" and "tent"
 * finds the category "Tents" (a crude English inflection: a label index holds both kinds of forms).
 */
export function inflectionVariants(normalized: string): string[] {
  const m = /^(.*?)([a-z]{3,})$/.exec(normalized);
  if (!m) return [];
  const [, head, last] = m;
  const out: string[] = [];
  if (last.endsWith("ies") && last.length > 4) out.push(`${last.slice(0, -3)}y`);
  else if (/(ches|shes|sses|xes|zes)$/.test(last)) out.push(last.slice(0, -2));
  else if (last.endsWith("s") && !last.endsWith("ss")) out.push(last.slice(0, -1));
  else if (last.endsWith("y") && !/[aeiou]y$/.test(last)) out.push(`${last.slice(0, -1)}ies`);
  else if (/(ch|sh|ss|x|z)$/.test(last)) out.push(`${last}es`);
  else out.push(`${last}s`);
  return out.map((w) => head + w);
}

/**
 * How well a mention matches a label, 0..1: exact normalized match 1, inflection variant 0.9, the
 * mention as whole words inside the label scaled by word overlap (Dice), anything else 0.
 */
export function labelMatchScore(mention: string, label: string): number {
  return normalizedMatchScore(normalizeLabel(mention), normalizeLabel(label));
}

function normalizedMatchScore(m: string, l: string): number {
  if (!m || !l) return 0;
  if (m === l) return 1;
  if (inflectionVariants(m).includes(l)) return INFLECTION_SCORE;
  if (!` ${l} `.includes(` ${m} `)) return 0;
  const mw = wordCount(m);
  const lw = wordCount(l);
  // Containment means every mention word is in the label: Dice = 2|m| / (|m| + |l|).
  return PARTIAL_WEIGHT * ((2 * mw) / (mw + lw));
}

/**
 * Edits a fuzzy match may need: none below 5 letters (too many short words are one letter apart),
 * one up to 8, two beyond.
 */
export function fuzzyEditBudget(normalized: string): number {
  const n = normalized.length;
  return n < 5 ? 0 : n <= 8 ? 1 : 2;
}

/**
 * Edit distance where swapping two neighbouring letters is one slip ("retruned" → "returned"), as a
 * typist makes it (optimal string alignment); Levenshtein alone counts it as two.
 */
export function typingDistance(a: string, b: string): number {
  const plain = distance(a, b);
  if (plain < 2 || a.length !== b.length) return plain;
  let best = plain;
  for (let i = 0; i + 1 < a.length; i++) {
    if (a[i] === a[i + 1] || a[i] !== b[i + 1] || a[i + 1] !== b[i]) continue;
    best = Math.min(best, 1 + distance(a.slice(0, i) + a[i + 1] + a[i] + a.slice(i + 2), b));
  }
  return best;
}

/** Fuzzy score of a mention against a label (both normalized): 0 unless within the edit budget. */
export function fuzzyMatchScore(m: string, l: string): number {
  const budget = fuzzyEditBudget(m);
  if (!budget || m === l || Math.abs(m.length - l.length) > budget || m.slice(0, FUZZY_FIXED_PREFIX) !== l.slice(0, FUZZY_FIXED_PREFIX))
    return 0;
  const d = typingDistance(m, l);
  return d <= budget ? FUZZY_WEIGHT * (1 - d / Math.max(m.length, l.length)) : 0;
}

/** The index ranges of labels a fuzzy mention can match: those sharing its first letter, and its first two. */
function fuzzyRanges(key: string): { from: string; to: string }[] {
  return [FUZZY_FIXED_PREFIX, FUZZY_NARROW_PREFIX].map((n) => {
    const from = key.slice(0, n);
    return { from, to: from.slice(0, -1) + String.fromCodePoint(from.codePointAt(from.length - 1)! + 1) };
  });
}

/** Links of each unlinked mention to the rows within its edit budget, ranked. */
function assembleFuzzy(prepared: PreparedMention[], rows: LabelRow[], limit: number): Map<string, EntityLink[]> {
  return new Map(
    prepared.map((p) => [
      p.mention,
      rankLinks(
        rows.flatMap((r) => {
          const score = fuzzyMatchScore(p.key, r.normalized);
          return score > 0 ? [toLink(r, score)] : [];
        }),
        limit,
      ),
    ]),
  );
}

/** Instance-like links first on equal scores: a question names things more often than schema parts. */
const KIND_ORDER: Record<string, number> = { value: 0, label: 0, node: 0, document: 1, class: 2, table: 2, predicate: 3, column: 3 };

export function compareLinks(a: EntityLink, b: EntityLink): number {
  return (
    b.score - a.score ||
    (KIND_ORDER[a.kind] ?? 4) - (KIND_ORDER[b.kind] ?? 4) ||
    a.label.length - b.label.length ||
    a.kbId.localeCompare(b.kbId) ||
    a.ref.localeCompare(b.ref)
  );
}

/** Best link per (kb, ref), ranked: the best `limit`, then the best link of each KB not among them (MAX_LINKS_ACROSS_KBS in all). */
export function rankLinks(links: EntityLink[], limit = DEFAULT_LINKS_PER_MENTION): EntityLink[] {
  const best = new Map<string, EntityLink>();
  for (const l of links) {
    const key = `${l.kbId}\u0000${l.ref}`;
    const prev = best.get(key);
    if (!prev || l.score > prev.score) best.set(key, l);
  }
  const ranked = [...best.values()].filter((l) => l.score >= MIN_LINK_SCORE).sort(compareLinks);
  const out = ranked.slice(0, limit);
  const kbs = new Set(out.map((l) => l.kbId));
  for (const l of ranked.slice(limit)) {
    if (out.length >= Math.max(limit, MAX_LINKS_ACROSS_KBS)) break;
    if (kbs.has(l.kbId)) continue;
    kbs.add(l.kbId);
    out.push(l);
  }
  return out;
}

interface PreparedMention {
  mention: string;
  key: string;
  prefix: boolean;
  contains: boolean;
  fuzzy: boolean;
}

function prepare(mentions: string[], options: EntityLookupOptions): PreparedMention[] {
  const seen = new Set<string>();
  const out: PreparedMention[] = [];
  for (const mention of mentions) {
    if (seen.has(mention) || out.length >= MAX_MENTIONS) continue;
    seen.add(mention);
    const key = normalizeLabel(mention).slice(0, MAX_MENTION_CHARS).trim();
    if (!key) continue;
    const partial = allowsPartialMatch(key);
    const contains = partial && (options.contains ? options.contains(mention) : false);
    out.push({
      mention,
      key,
      prefix: partial && (options.prefix ? options.prefix(mention) : true),
      contains,
      fuzzy: fuzzyEditBudget(key) > 0 && (options.fuzzy ? options.fuzzy(mention) : contains),
    });
  }
  return out;
}

function toLink(row: LabelRow, score: number): EntityLink {
  return { kbId: row.kbId, label: row.label, kind: row.kind, ref: row.ref, sourceObject: row.sourceObject, score };
}

/**
 * Groups candidate label rows under every mention they match and ranks them. Rows are matched
 * through their normalized form (exact and variant keys, word prefixes), not mention × row, so a
 * batch of hundreds of mentions and thousands of rows stays cheap.
 */
function assemble(prepared: PreparedMention[], rows: LabelRow[], limit: number, containment = false): Map<string, EntityLink[]> {
  const byKey = new Map<string, PreparedMention[]>();
  const byVariant = new Map<string, PreparedMention[]>();
  for (const p of prepared) {
    byKey.set(p.key, [...(byKey.get(p.key) ?? []), p]);
    for (const v of inflectionVariants(p.key)) byVariant.set(v, [...(byVariant.get(v) ?? []), p]);
  }
  const links = new Map<string, EntityLink[]>(prepared.map((p) => [p.mention, []]));
  const add = (p: PreparedMention, row: LabelRow, score: number) => {
    if (score > 0) links.get(p.mention)!.push(toLink(row, score));
  };
  for (const row of rows) {
    const n = row.normalized;
    for (const p of byKey.get(n) ?? []) add(p, row, 1);
    for (const p of byVariant.get(n) ?? []) add(p, row, INFLECTION_SCORE);
    const words = n.split(" ");
    for (let i = 1; i < words.length; i++) {
      for (const p of byKey.get(words.slice(0, i).join(" ")) ?? []) if (p.prefix) add(p, row, normalizedMatchScore(p.key, n));
    }
    if (containment)
      for (const p of prepared) if (p.contains && p.key !== n && !n.startsWith(`${p.key} `)) add(p, row, normalizedMatchScore(p.key, n));
  }
  return new Map([...links].map(([mention, l]) => [mention, rankLinks(l, limit)]));
}

/**
 * An in-memory lookup over label rows (tests, small fixed catalogs). Same matching and scoring as
 * the database lookup, including the prefix/contains rules.
 */
export function inMemoryEntityLookup(rows: Omit<LabelRow, "normalized">[]): EntityLookup {
  const indexed: LabelRow[] = rows.map((r) => ({ ...r, normalized: normalizeLabel(r.label) })).filter((r) => r.normalized);
  return {
    async find(mentions, kbIds, limit = DEFAULT_LINKS_PER_MENTION, options = {}) {
      const prepared = prepare(mentions, options);
      const allowed = new Set(kbIds);
      const inScope = indexed.filter((r) => allowed.has(r.kbId));
      const found = assemble(prepared, inScope, limit);
      const unlinked = prepared.filter((p) => p.contains && !found.get(p.mention)?.length);
      if (unlinked.length) for (const [mention, links] of assemble(unlinked, inScope, limit, true)) found.set(mention, links);
      const stillUnlinked = prepared.filter((p) => p.fuzzy && !found.get(p.mention)?.length);
      for (const [mention, links] of assembleFuzzy(stillUnlinked, inScope, limit)) found.set(mention, links);
      return found;
    },
  };
}

export interface PrismaEntityLookupOptions {
  /**
   * Containment matching scans the label table (no text index); it is skipped when the table is
   * larger than this, so one question stays well under 100 ms of database time on large catalogs.
   */
  containsScanMaxBytes?: number;
  /**
   * How prefix matches are queried: "index" (one bounded index range per prefix; needs the C
   * collation, as PGlite has), "scan" (all prefixes in one pass over the table: the cheapest plan
   * when a linguistic collation keeps LIKE from using the index). Default: detected once.
   */
  prefixPlan?: "index" | "scan" | "auto";
}

/** About 25k labels: a containment pass over them with a few patterns takes tens of milliseconds on PGlite. */
const DEFAULT_CONTAINS_SCAN_MAX_BYTES = 4 * 1024 * 1024;
/** Rows read per prefix range before ranking by label length: bounded even for a very common prefix. */
const PREFIX_SCAN_ROWS = 200;
const CONTAINS_ROWS = 500;

/**
 * The lookup over the application database. Query 1 takes exact matches (`normalized IN (...)`,
 * mentions and their inflection variants, capped per label) together with word-boundary prefix
 * matches (`normalized LIKE 'summit 2 %'`: index ranges under the C collation PGlite uses, one
 * table pass otherwise); query 2, only for requested mentions still unlinked and only on a small
 * label table, scans for labels containing the mention as whole words; query 3, for those still
 * unlinked, reads the labels that begin with the mention's first letters and are about as long (an
 * index range), and keeps those a letter or two apart (fuzzyMatchScore).
 */
/** Facts about a database that every run's lookup shares (a run creates its own lookup). */
interface DatabaseFacts {
  plan?: Promise<"index" | "scan">;
}
const databaseFacts = new WeakMap<PrismaClient, DatabaseFacts>();

export function prismaEntityLookup(prisma: PrismaClient, options: PrismaEntityLookupOptions = {}): EntityLookup {
  const maxScanBytes = options.containsScanMaxBytes ?? DEFAULT_CONTAINS_SCAN_MAX_BYTES;
  const facts = databaseFacts.get(prisma) ?? {};
  databaseFacts.set(prisma, facts);

  /**
   * The prefix plan: each prefix branch narrows by equality on `head` (the label's first word, indexed),
   * which works under any collation, then checks the word-boundary prefix; "scan" stays an option.
   */
  function prefixPlan(): Promise<"index" | "scan"> {
    if (options.prefixPlan && options.prefixPlan !== "auto") return Promise.resolve(options.prefixPlan);
    facts.plan ??= Promise.resolve("index" as const);
    return facts.plan;
  }

  /** Asked afresh each time (a catalog load can grow the table at any moment); it costs well under a millisecond. */
  async function labelTableBytes(): Promise<number> {
    const [row] = await prisma.$queryRaw<{ bytes: bigint | number }[]>`SELECT pg_relation_size('"EntityLabel"') AS bytes`;
    return Number(row?.bytes ?? 0);
  }

  return {
    async find(mentions, kbIds, limit = DEFAULT_LINKS_PER_MENTION, lookupOptions = {}) {
      const prepared = prepare(mentions, lookupOptions);
      if (!prepared.length || !kbIds.length) return new Map(prepared.map((p) => [p.mention, []]));
      const exactKeys = [...new Set(prepared.flatMap((p) => [p.key, ...inflectionVariants(p.key)]))];
      const prefixKeys = [...new Set(prepared.filter((p) => p.prefix).map((p) => p.key))];
      // Integers by construction: they are inlined into the SQL text.
      const perLabel = Math.max(1, Math.floor(limit)) * 3;
      const perLabelAndKb = ROWS_PER_LABEL_AND_KB;

      // Exact matches: a few rows per label in every KB (not the first rows overall), so a common value keeps a link into each KB.
      const exactQuery = Prisma.sql`
        SELECT "kbId", label, normalized, kind, ref, "sourceObject" FROM (
          SELECT "kbId", label, normalized, kind, ref, "sourceObject", row_number() OVER (PARTITION BY normalized, "kbId" ORDER BY id) AS rn
          FROM "EntityLabel" WHERE normalized = ANY(${exactKeys}) AND "kbId" = ANY(${kbIds})
        ) exact WHERE rn <= ${Prisma.raw(String(perLabelAndKb))}`;
      // Index plan: one bounded branch per prefix so a common prefix cannot crowd out the others;
      // each branch's constant pattern lets the planner use the index range.
      const usesIndex = prefixKeys.length > 0 && (await prefixPlan()) === "index";
      const prefixQueries = (usesIndex ? prefixKeys : []).map(
        (key) => Prisma.sql`(
          SELECT "kbId", label, normalized, kind, ref, "sourceObject" FROM (
            SELECT "kbId", label, normalized, kind, ref, "sourceObject" FROM "EntityLabel"
            WHERE head = ${key.split(" ")[0] ?? key} AND normalized LIKE ${`${key} %`} AND "kbId" = ANY(${kbIds}) LIMIT ${Prisma.raw(String(PREFIX_SCAN_ROWS))}
          ) p ORDER BY length(normalized) LIMIT ${Prisma.raw(String(perLabel))})`,
      );
      // Scan plan: every prefix in one pass, bounded in total.
      if (prefixKeys.length && !usesIndex) {
        prefixQueries.push(Prisma.sql`(
          SELECT "kbId", label, normalized, kind, ref, "sourceObject" FROM "EntityLabel"
          WHERE normalized LIKE ANY(${prefixKeys.map((k) => `${k} %`)}) AND "kbId" = ANY(${kbIds})
          LIMIT ${Prisma.raw(String(PREFIX_SCAN_ROWS * 5))})`);
      }
      const rows = await prisma.$queryRaw<LabelRow[]>(
        prefixQueries.length ? Prisma.sql`${exactQuery} UNION ALL ${Prisma.join(prefixQueries, " UNION ALL ")}` : exactQuery,
      );

      const found = assemble(prepared, rows, limit);
      const unlinked = prepared.filter((p) => p.contains && !found.get(p.mention)?.length);
      if (unlinked.length && (await labelTableBytes()) <= maxScanBytes) {
        const patterns = unlinked.flatMap((p) => [`% ${p.key}`, `% ${p.key} %`]);
        const more = await prisma.$queryRaw<LabelRow[]>`
          SELECT "kbId", label, normalized, kind, ref, "sourceObject" FROM "EntityLabel"
          WHERE "kbId" = ANY(${kbIds}) AND normalized LIKE ANY(${patterns}) LIMIT ${Prisma.raw(String(CONTAINS_ROWS))}`;
        for (const [mention, links] of assemble(unlinked, more, limit, true)) found.set(mention, links);
      }
      // Fuzzy: one bounded index range per mention (labels beginning with its first letters, of about its length).
      const fuzzy = prepared.filter((p) => p.fuzzy && !found.get(p.mention)?.length);
      if (fuzzy.length) {
        const ranges = fuzzy.flatMap((p) => {
          const budget = fuzzyEditBudget(p.key);
          return fuzzyRanges(p.key).map(
            ({ from, to }) => Prisma.sql`(
            SELECT "kbId", label, normalized, kind, ref, "sourceObject" FROM "EntityLabel"
            WHERE normalized >= ${from} AND normalized < ${to} AND length(normalized) BETWEEN ${p.key.length - budget} AND ${p.key.length + budget}
              AND "kbId" = ANY(${kbIds}) LIMIT ${Prisma.raw(String(FUZZY_ROWS))})`,
          );
        });
        const near = await prisma.$queryRaw<LabelRow[]>(Prisma.join(ranges, " UNION ALL "));
        for (const [mention, links] of assembleFuzzy(fuzzy, near, limit)) found.set(mention, links);
      }
      return found;
    },
  };
}
