import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { AccessSubject } from "../catalog/access";
import type { CatalogDeps } from "../deps";
import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { type GuideFileItem, type ImportItemReport, importGuides, parseGuideFile } from "../guides/files";
import type { GuidesFileRef } from "./types";

/**
 * `npm run eval -- --guides G` (the few-shot protocol): G's items are registered as guides owned by an
 * analyst before the run and removed after it. Each item is checked as `npm run guides:import` checks
 * it (safety rules, it runs, it returns rows); a broken item is reported and left out, the others are
 * imported. Only the guides this run created are removed: an item that was already a guide stays.
 */

export interface EvalGuidesFile {
  items: GuideFileItem[];
  ref: Pick<GuidesFileRef, "name" | "sha256">;
}

/** Reads and parses the guide file; its checksum is part of the run's journal key and of the report. */
export function readEvalGuidesFile(file: string): EvalGuidesFile {
  const name = path.basename(file);
  if (!existsSync(file)) throw new AppError("VALIDATION", `The guide file ${file} does not exist.`);
  if (!statSync(file).isFile()) throw new AppError("VALIDATION", `${file} is a folder, not a guide file.`);
  const bytes = readFileSync(file);
  const items = parseGuideFile(bytes.toString("utf8"), name);
  return { items, ref: { name, sha256: createHash("sha256").update(bytes).digest("hex") } };
}

/**
 * Who owns the run's guides: the named user (an analyst or admin), else the first active analyst, else
 * the run's own user when they may write guides.
 */
export async function evalGuideOwner(
  prisma: PrismaClient,
  runUser: AccessSubject,
  email?: string,
): Promise<{ email: string; subject: AccessSubject }> {
  const row = email
    ? await prisma.user.findUnique({ where: { email: email.toLowerCase() }, include: { memberships: true } })
    : ((await prisma.user.findFirst({
        where: { role: "ANALYST", active: true },
        orderBy: { createdAt: "asc" },
        include: { memberships: true },
      })) ?? (await prisma.user.findUnique({ where: { id: runUser.id }, include: { memberships: true } })));
  if (!row || !row.active)
    throw new AppError("VALIDATION", email ? `No active user ${email}.` : "No active analyst exists: pass --guides-user <email>.");
  if (row.role === "USER") throw new AppError("VALIDATION", `${row.email} is a business user; guides are owned by analysts and admins.`);
  return { email: row.email, subject: { id: row.id, role: row.role, groupIds: row.memberships.map((m) => m.groupId) } };
}

export interface RegisteredEvalGuides {
  ref: GuidesFileRef;
  items: ImportItemReport[];
  /** The ids of the guides this run created (and removes). */
  guideIds: string[];
  remove(): Promise<number>;
}

export async function registerEvalGuides(
  prisma: PrismaClient,
  deps: CatalogDeps,
  owner: { email: string; subject: AccessSubject },
  file: EvalGuidesFile,
  opts: { signal?: AbortSignal; onItem?: (r: ImportItemReport) => void } = {},
): Promise<RegisteredEvalGuides> {
  const report = await importGuides(prisma, deps, owner.subject, file.items, { keepGoing: true, signal: opts.signal, onItem: opts.onItem });
  const guideIds = report.items.flatMap((r) => (r.status === "imported" && r.guideId ? [r.guideId] : []));
  return {
    ref: {
      ...file.ref,
      owner: owner.email,
      items: file.items.length,
      imported: report.imported,
      // Already a guide on that source: used by the run, but neither created nor removed by it.
      existing: report.duplicates,
      skipped: report.failed,
    },
    items: report.items,
    guideIds,
    remove: async () => {
      const { count } = await prisma.extractionGuide.deleteMany({ where: { id: { in: guideIds } } });
      return count;
    },
  };
}
