import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ingestFiles } from "@/lib/ingest/documents/ingest-files";
import { DocumentParsePool, UnreadableUploadError } from "@/lib/ingest/documents/parsers/index";
import { SqliteEngine } from "@/lib/backends/sql/sqlite/engine";
import {
  deepHtml,
  deepMarkdownList,
  pdfManyPages,
  pdfSharedTextStream,
  sqliteFts5OverEndlessView,
  sqliteOtherModules,
} from "@/tests/support/hostile-files";

/**
 * Issue 31, cases 10–13: hostile uploads fail alone with a plain message naming the file, while this
 * thread keeps answering. Responsiveness is a 10 ms timer's lateness measured while the file is read;
 * the bound (1 s) is generous because the test machine is small and shared: before the fix the same
 * files held the thread for 24 s to 21 minutes.
 */

const dirs: string[] = [];
const pool = new DocumentParsePool();
afterAll(() => {
  pool.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "mosaic-hostile-"));
  dirs.push(dir);
  return dir;
}

/** Runs `work` while a 10 ms timer runs; returns its outcome and the timer's worst lateness (ms). */
async function whileTimed<T>(work: () => Promise<T>): Promise<{ result: T | Error; worstLateMs: number; ticks: number }> {
  let last = performance.now();
  let worst = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 10);
    last = now;
    ticks++;
  }, 10);
  try {
    const result = await work().catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    return { result, worstLateMs: worst, ticks };
  } finally {
    clearInterval(timer);
  }
}

const RESPONSIVE_MS = 1_000;

describe("hostile documents are read off the main thread and fail alone", () => {
  it.each([
    [
      "case 10: 200,000 nested <div>",
      "deep.html",
      () => deepHtml(200_000),
      /deep\.html: the HTML has elements nested more than 256 levels deep/,
    ],
    [
      "case 12: 1,000 nested list levels",
      "deep.md",
      () => deepMarkdownList(1_000),
      /deep\.md: the Markdown has lists or quotes nested more than 128 levels deep/,
    ],
    [
      "case 12: 8,000 nested list levels (64 MB)",
      "deeper.md",
      () => deepMarkdownList(8_000),
      /deeper\.md: the Markdown has lists or quotes nested more than 128 levels/,
    ],
    [
      // Issue 31's case had 60 pages; one machine read them in 29.7 s, inside the 30 s budget. 300 pages
      // outlast the budget on a machine five times faster, and the budget still ends the read at 30 s.
      "case 13: 300 pages sharing one stream of 4 M characters",
      "shared.pdf",
      () => pdfSharedTextStream(300, 4_000_000),
      /shared\.pdf: (the PDF took longer than 30 s to read \(by page \d+|page \d+ of the PDF took longer than 10 s)/,
    ],
  ])("%s", { timeout: 180_000 }, async (_case, name, make, says) => {
    const bytes = make();
    const { result, worstLateMs, ticks } = await whileTimed(() => pool.parse({ name, bytes }));
    expect(result).toBeInstanceOf(UnreadableUploadError);
    expect((result as Error).message).toMatch(says);
    expect(ticks).toBeGreaterThan(0);
    expect(worstLateMs).toBeLessThan(RESPONSIVE_MS);
  });

  it("stops a file past its time budget and says so", { timeout: 120_000 }, async () => {
    const strict = new DocumentParsePool({ timeoutMs: 1, heapMb: 256, memoryMb: 512 });
    try {
      await expect(strict.parse({ name: "long.pdf", bytes: pdfManyPages(300) })).rejects.toThrow(
        /long\.pdf: took longer than 0 s to read, so reading it was stopped/,
      );
    } finally {
      strict.close();
    }
  });

  it("loses nothing else in the batch", { timeout: 180_000 }, async () => {
    const dir = tempDir();
    const ctx = { kbId: `kb_${path.basename(dir).replace(/[^a-z0-9]/gi, "")}`, kbName: "Hostile", storageDir: dir };
    const report = await ingestFiles(ctx, [
      { name: "before.md", bytes: Buffer.from("# Before\n\nThe hostile file comes next.") },
      { name: "deep.html", bytes: deepHtml(200_000) },
      { name: "after.md", bytes: Buffer.from("# After\n\nThe hostile file came before.") },
    ]);
    expect(report).toMatchObject({
      added: 2,
      failed: [{ name: "deep.html", error: expect.stringMatching(/^the HTML has elements nested more than 256/) }],
    });
  });
});

describe("SQLite uploads are inspected in the killable query process", () => {
  it("case 11: an FTS5 table over an endless recursive view is counted without freezing the server", { timeout: 120_000 }, async () => {
    const file = path.join(tempDir(), "notes.sqlite");
    writeFileSync(file, sqliteFts5OverEndlessView());
    const engine = new SqliteEngine(file);
    try {
      const tables = await engine.loadTables();
      const notes = tables.find((t) => t.name === "notes")!;
      expect(notes).toMatchObject({ computed: true });
      const { result, worstLateMs } = await whileTimed(() => engine.countRows(notes));
      // The count ran until the inspection deadline in the query process and is shown as unknown.
      expect(result).toEqual({ rows: null, approximate: true });
      expect(worstLateMs).toBeLessThan(RESPONSIVE_MS);
      // The plain table beside it still reads.
      const t = tables.find((x) => x.name === "t")!;
      expect(await engine.countRows(t)).toEqual({ rows: 1, approximate: false });
    } finally {
      await engine.close();
    }
  });

  it("describes full-text and R*Tree tables but not dbstat, fts5vocab or modules this SQLite lacks", async () => {
    const file = path.join(tempDir(), "modules.sqlite");
    writeFileSync(file, sqliteOtherModules());
    const engine = new SqliteEngine(file);
    try {
      const names = (await engine.loadTables()).map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["t", "boxes", "docs"]));
      expect(names).not.toContain("pages");
      expect(names).not.toContain("words");
      expect(names).not.toContain("passwd");
    } finally {
      await engine.close();
    }
  });
});
