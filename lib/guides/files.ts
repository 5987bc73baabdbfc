import { z } from "zod";
import type { KbRecord } from "../backends/registry";
import { LANGUAGE_OF, type NativeQuery } from "../backends/types";
import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import type { CatalogDeps } from "../deps";
import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { BENCHMARK_NAMES } from "../ingest/benchmarks/load";
import { parseGuideAction } from "../pipeline/guide-actions";
import { guideAccessWhere } from "./access";
import { captureAction } from "./capture";
import { enqueueGuideEmbedding, saveGuide } from "./save";

/**
 * Guides as files (npm run guides:import / guides:export): a JSON array in Spider's format, one item
 * per guide: `question`, `query` (SQL, SPARQL or Cypher: the language of the item's knowledge base),
 * and where it runs: `db_id` (a Spider database, registered as "Spider: <db_id>") or `kb` (a
 * knowledge base's name); `--kb NAME` names it for items that name neither. A team seeds a source with
 * the questions it already knows.
 */

export const guideFileItemSchema = z.object({
  question: z.string().trim().min(1).max(2000),
  query: z.string().trim().min(1).max(100_000),
  db_id: z.string().trim().min(1).optional(),
  kb: z.string().trim().min(1).optional(),
  /** Notes for the analysts who read the guide (optional). */
  notes: z.string().max(10_000).optional(),
});
export type GuideFileItem = z.infer<typeof guideFileItemSchema>;

/** A problem with the file itself (not JSON, not an array, an item without a field): nothing is imported. */
export class GuideFileError extends AppError {
  constructor(message: string) {
    super("VALIDATION", message);
  }
}

function itemLabel(raw: unknown, i: number): string {
  const q = (raw as { question?: unknown } | null)?.question;
  return `item ${i} (index ${i - 1}${typeof q === "string" && q.trim() ? `, "${q.trim().slice(0, 60)}"` : ""})`;
}

function issueText(issue: z.core.$ZodIssue, raw: unknown): string {
  const field = issue.path.map(String).join(".");
  const present = field && raw && typeof raw === "object" && field in (raw as Record<string, unknown>);
  if (field && !present) return `has no "${field}"`;
  if (issue.code === "invalid_type")
    return `"${field || "the item"}" must be ${issue.expected === "object" ? "an object" : `a ${issue.expected}`}`;
  if (issue.code === "too_small") return `"${field}" is empty`;
  if (issue.code === "too_big") return `"${field}" is too long`;
  return `"${field || "the item"}": ${issue.message}`;
}

/** The file's items; a syntax error names its line and column, a bad item its number, index and field. */
export function parseGuideFile(text: string, file: string): GuideFileItem[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    const pos = /position (\d+)/.exec(message);
    let where = "";
    if (pos) {
      const before = text.slice(0, Number(pos[1]));
      where = `, line ${before.split("\n").length}, column ${Number(pos[1]) - before.lastIndexOf("\n")}`;
    }
    throw new GuideFileError(`${file} is not valid JSON${where}: ${message.replace(/ in JSON at position \d+.*$/, "")}.`);
  }
  if (!Array.isArray(data)) throw new GuideFileError(`${file} must hold a JSON array of guides ({db_id or kb, question, query}).`);
  if (!data.length) throw new GuideFileError(`${file} holds an empty list: there is nothing to import.`);
  return data.map((raw, i) => {
    const parsed = guideFileItemSchema.safeParse(raw);
    if (!parsed.success) throw new GuideFileError(`${file}, ${itemLabel(raw, i + 1)}: ${issueText(parsed.error.issues[0], raw)}.`);
    return parsed.data;
  });
}

export interface ImportItemReport {
  /** 1-based, as people count items. */
  item: number;
  question: string;
  kb: string | null;
  status: "imported" | "ready" | "duplicate" | "failed";
  /** What is wrong (failed), or what happened, in words. */
  detail: string;
  rows?: number;
  guideId?: string;
}

export interface ImportReport {
  items: ImportItemReport[];
  imported: number;
  failed: number;
  duplicates: number;
  /** False when a failed item stopped the import (nothing imported). */
  committed: boolean;
}

function kbNameOf(item: GuideFileItem, defaultKb: string | undefined): string | null {
  if (item.kb) return item.kb;
  if (item.db_id) return BENCHMARK_NAMES.spider(item.db_id);
  return defaultKb ?? null;
}

/**
 * Checks every item (its knowledge base exists and the user may use it; the query passes the source's
 * safety rules, runs, and returns rows), then imports them as guides owned by `user`. A failed item
 * stops the whole import unless `keepGoing` (then the good items are imported and the failed ones
 * reported). An item whose question and query are already a guide on that source is left alone.
 */
export async function importGuides(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  items: GuideFileItem[],
  opts: { defaultKb?: string; keepGoing?: boolean; dryRun?: boolean; signal?: AbortSignal; onItem?: (r: ImportItemReport) => void } = {},
): Promise<ImportReport> {
  const kbs = new Map<string, KbRecord | null>();
  const kbNamed = async (name: string): Promise<KbRecord | null> => {
    if (!kbs.has(name)) {
      const kb = await prisma.knowledgeBase.findFirst({ where: { AND: [{ name }, kbAccessWhere(user)] } });
      kbs.set(name, kb ? ({ ...kb, kind: kb.kind } as KbRecord) : null);
    }
    return kbs.get(name)!;
  };
  const reports: ImportItemReport[] = [];
  const ready: { report: ImportItemReport; kb: KbRecord; item: GuideFileItem; query: NativeQuery; context: string }[] = [];
  for (const [i, item] of items.entries()) {
    if (opts.signal?.aborted) throw new AppError("CONFLICT", "The import was stopped before it finished; nothing was imported.");
    const name = kbNameOf(item, opts.defaultKb);
    const report: ImportItemReport = { item: i + 1, question: item.question, kb: name, status: "failed", detail: "" };
    reports.push(report);
    const done = () => opts.onItem?.(report);
    if (!name) {
      report.detail = 'names no knowledge base: give "db_id" or "kb", or pass --kb NAME';
      done();
      continue;
    }
    const kb = await kbNamed(name);
    if (!kb) {
      report.detail = `no knowledge base "${name}" is registered and shared with you`;
      done();
      continue;
    }
    if (kb.kind === "DOCUMENTS") {
      report.detail = `${name} is a document collection: guides from files hold SQL, SPARQL or Cypher queries`;
      done();
      continue;
    }
    const query: NativeQuery = { language: LANGUAGE_OF[kb.kind], text: item.query };
    const action = parseGuideAction("NATIVE_QUERY", { query });
    if (!action) {
      report.detail = "the query is not a valid native query";
      done();
      continue;
    }
    const sameQuestion = await prisma.extractionGuide.findMany({
      where: { AND: [guideAccessWhere(user), { question: item.question }, { sources: { some: { kbId: kb.id } } }] },
      select: { sources: { where: { kbId: kb.id }, select: { actions: { select: { kind: true, params: true } } } } },
    });
    const same = sameQuestion.some((g) =>
      g.sources.some((s) =>
        s.actions.some(
          (a) =>
            parseGuideAction(a.kind, a.params)?.kind === "NATIVE_QUERY" && (a.params as { query?: NativeQuery }).query?.text === item.query,
        ),
      ),
    );
    if (same) {
      report.status = "duplicate";
      report.detail = "already a guide on this source (left as it is)";
      done();
      continue;
    }
    try {
      // The backend's own safety rules and limits, as for any generated query; the query must find something.
      const captured = await captureAction(kb, action, deps, opts.signal);
      report.rows = captured.pieceCount;
      if (captured.pieceCount === 0) {
        report.detail = "the query runs but returns no rows: a guide's query must find what its question asks";
        done();
        continue;
      }
      report.status = "ready";
      report.detail = `runs and returns ${captured.pieceCount}${captured.pieceCount >= 200 ? "+" : ""} row(s)`;
      ready.push({ report, kb, item, query, context: captured.context });
    } catch (e) {
      report.detail = e instanceof AppError ? e.message : `the query could not run: ${(e as Error).message}`;
    }
    done();
  }
  const failed = reports.filter((r) => r.status === "failed").length;
  const duplicates = reports.filter((r) => r.status === "duplicate").length;
  if ((failed > 0 && !opts.keepGoing) || opts.dryRun) return { items: reports, imported: 0, failed, duplicates, committed: false };
  let imported = 0;
  for (const r of ready) {
    const saved = await saveGuide(
      prisma,
      deps,
      user,
      {
        question: r.item.question,
        notes: r.item.notes ?? "",
        sources: [{ kbId: r.kb.id, actions: [{ kind: "NATIVE_QUERY", params: { query: r.query }, context: r.context }] }],
      },
      { embed: false },
    );
    r.report.status = "imported";
    r.report.guideId = saved.id;
    imported++;
  }
  if (imported > 0) await enqueueGuideEmbedding(prisma);
  return { items: reports, imported, failed, duplicates, committed: true };
}

export interface ExportedGuide {
  question: string;
  query: string;
  /** The Spider database, for a guide on a registered Spider database (Spider's own format). */
  db_id?: string;
  kb: string;
  language: NativeQuery["language"];
}

/** The user's visible guides with native queries (on one knowledge base, or all), one item per query, in Spider's format. */
export async function exportGuides(prisma: PrismaClient, user: AccessSubject, kbName?: string): Promise<ExportedGuide[]> {
  let kbId: string | undefined;
  if (kbName) {
    const kb = await prisma.knowledgeBase.findFirst({ where: { AND: [{ name: kbName }, kbAccessWhere(user)] }, select: { id: true } });
    if (!kb) throw new AppError("NOT_FOUND", `No knowledge base "${kbName}" is registered and shared with you.`);
    kbId = kb.id;
  }
  const visibleKbs = await prisma.knowledgeBase.findMany({ where: kbAccessWhere(user), select: { id: true, name: true } });
  const names = new Map(visibleKbs.map((k) => [k.id, k.name]));
  const guides = await prisma.extractionGuide.findMany({
    where: { AND: [guideAccessWhere(user), kbId ? { sources: { some: { kbId } } } : {}] },
    include: { sources: { include: { actions: { orderBy: { position: "asc" } } }, orderBy: { position: "asc" } } },
    orderBy: { createdAt: "asc" },
  });
  const spider = BENCHMARK_NAMES.spider("");
  const out: ExportedGuide[] = [];
  for (const g of guides) {
    for (const s of g.sources) {
      const name = names.get(s.kbId);
      if (!name || (kbId && s.kbId !== kbId)) continue;
      for (const a of s.actions) {
        const parsed = parseGuideAction(a.kind, a.params);
        if (parsed?.kind !== "NATIVE_QUERY" || parsed.params.query.language === "search") continue;
        out.push({
          question: g.question,
          query: parsed.params.query.text,
          ...(name.startsWith(spider) && parsed.params.query.language === "sql" ? { db_id: name.slice(spider.length) } : {}),
          kb: name,
          language: parsed.params.query.language,
        });
      }
    }
  }
  return out;
}
