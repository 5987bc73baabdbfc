import type { AccessSubject } from "../catalog/access";
import type { PrismaClient } from "../db/generated/client";
import { parseGuideAction } from "../pipeline/guide-actions";
import type { NativeQuery } from "../backends/types";
import { terms } from "../pipeline/text";
import { guideAccessWhere } from "./access";

/**
 * What every ask reads of the analysts' guides (their questions to rank, the native queries whose
 * vocabulary they teach), kept in memory per database client so a workspace with a thousand guides does
 * not load and parse them all on each ask (issue 28: "latency with 1,000 guides: ask p50 within 10 % of
 * none").
 *
 * Access is never answered from memory: each read asks the database which guides this user may use on
 * these knowledge bases (one query returning ids and `updatedAt`, the access rule inside it), and only
 * the content of those guides comes from memory. Every write to a guide's question, sources or actions
 * goes through an update of the guide row, so a changed `updatedAt` reloads that guide; a guide no
 * longer returned is simply not used (and ages out of memory). What a run executes (the actions of the
 * few nearest guides, their source objects) is read fresh by the caller, never from here.
 */

/** Guides remembered per database client (≈ 1 KB each without vectors, ≈ 2.5 KB with). */
const MEMORY_LIMIT = 20_000;
/** Guides read per query, as before the cache: a workspace beyond this many is not ranked in full. */
const MAX_VISIBLE = 5_000;

export interface RememberedGuide {
  id: string;
  question: string;
  /** The question's BM25 terms, tokenized once. */
  terms: string[];
  /** Every valid native query of the guide, with its KB (the vocabulary guides teach). */
  queries: { kbId: string; query: NativeQuery }[];
  /** The question's embedding per embedding model, once known. */
  vectors: Map<string, Float32Array>;
}

interface Entry extends RememberedGuide {
  stamp: number;
}

class GuideMemory {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly prisma: PrismaClient) {}

  /** The guides this user may use on these KBs, oldest first, their content from memory where unchanged. */
  async visible(user: AccessSubject, kbIds: string[]): Promise<RememberedGuide[]> {
    const rows = await this.prisma.extractionGuide.findMany({
      where: { AND: [guideAccessWhere(user), { sources: { some: { kbId: { in: kbIds } } } }] },
      select: { id: true, updatedAt: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: MAX_VISIBLE,
    });
    const stale = rows.filter((r) => this.entries.get(r.id)?.stamp !== r.updatedAt.getTime()).map((r) => r.id);
    for (let i = 0; i < stale.length; i += 1_000) await this.load(stale.slice(i, i + 1_000));
    const out: RememberedGuide[] = [];
    for (const r of rows) {
      const e = this.entries.get(r.id);
      if (!e) continue; // deleted between the two reads
      // Most recently used last, so the oldest unused guides leave first when memory is full.
      this.entries.delete(r.id);
      this.entries.set(r.id, e);
      out.push(e);
    }
    return out;
  }

  private async load(ids: string[]): Promise<void> {
    const guides = await this.prisma.extractionGuide.findMany({
      where: { id: { in: ids } },
      select: {
        id: true,
        question: true,
        updatedAt: true,
        sources: {
          select: { kbId: true, actions: { select: { kind: true, params: true }, orderBy: { position: "asc" } } },
          orderBy: { position: "asc" },
        },
      },
    });
    for (const g of guides) {
      const queries = g.sources.flatMap((s) =>
        s.actions.flatMap((a) => {
          const parsed = parseGuideAction(a.kind, a.params);
          return parsed?.kind === "NATIVE_QUERY" ? [{ kbId: s.kbId, query: parsed.params.query }] : [];
        }),
      );
      const before = this.entries.get(g.id);
      // A vector belongs to the question's text: kept only while the question is the same.
      const vectors = before && before.question === g.question ? before.vectors : new Map<string, Float32Array>();
      this.entries.delete(g.id);
      if (this.entries.size >= MEMORY_LIMIT) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(g.id, { id: g.id, question: g.question, terms: terms(g.question), queries, vectors, stamp: g.updatedAt.getTime() });
    }
  }
}

const memories = new WeakMap<PrismaClient, GuideMemory>();

/** The guide memory of this database client (tests open several databases in one process). */
export function guideMemory(prisma: PrismaClient): GuideMemory {
  let m = memories.get(prisma);
  if (!m) {
    m = new GuideMemory(prisma);
    memories.set(prisma, m);
  }
  return m;
}
