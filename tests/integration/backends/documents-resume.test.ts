import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { indexPath } from "@/lib/backends/documents";
import { ingestFiles } from "@/lib/ingest/documents/ingest-files";
import type { BackendContext } from "@/lib/backends/types";
import { memoFiles } from "@/tests/fixtures/documents/fixture-files";

const COUNT = 400;
const KILL_AFTER = 60;
const dirs: string[] = [];

function freshContext(): BackendContext {
  const dir = mkdtempSync(path.join(tmpdir(), "mosaic-resume-"));
  dirs.push(dir);
  return { kbId: "resume", kbName: "Resume", storageDir: dir };
}

/** Starts the ingest in a child process and kills it (SIGKILL: no cleanup, like a crash) mid-way. */
function ingestAndKill(storageDir: string): Promise<{ reported: number; finished: boolean }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.resolve("tests/fixtures/documents/ingest-child.ts"), storageDir, String(COUNT)],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let reported = 0;
  let finished = false;
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  child.stdout.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) {
      if (line === "finished") finished = true;
      else if (/^\d+$/.test(line)) reported = Math.max(reported, Number(line));
    }
    if (reported >= KILL_AFTER) child.kill("SIGKILL");
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`ingest child exited with ${code} before it was killed: ${stderr}`));
      else resolve({ reported, finished });
    });
  });
}

/** Per document: passages, search rows and FTS rows; a half-written document would show up as a mismatch. */
function contents(ctx: BackendContext) {
  const db = new Database(indexPath(ctx));
  try {
    return {
      perDocument: Object.fromEntries(
        (
          db
            .prepare("SELECT d.source_name AS name, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) AS n FROM documents d")
            .all() as { name: string; n: number }[]
        ).map((r) => [r.name, r.n]),
      ),
      documents: db.prepare("SELECT count(*) FROM documents").pluck().get() as number,
      distinctHashes: db.prepare("SELECT count(DISTINCT content_hash) FROM documents").pluck().get() as number,
      chunks: db.prepare("SELECT count(*) FROM chunks").pluck().get() as number,
      searchRows: db.prepare("SELECT count(*) FROM search_rows").pluck().get() as number,
      ftsRows: db.prepare("SELECT count(*) FROM search_index").pluck().get() as number,
      orphanRows: db
        .prepare("SELECT count(*) FROM search_rows r LEFT JOIN chunks c ON c.id = r.chunk_id WHERE c.id IS NULL")
        .pluck()
        .get() as number,
    };
  } finally {
    db.close();
  }
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("resumable ingestion after a crash", () => {
  it("keeps every committed document whole when the process is killed, and a re-run completes the collection", async () => {
    const reference = freshContext();
    await ingestFiles(reference, memoFiles(COUNT));
    const expected = contents(reference);
    expect(expected.documents).toBe(COUNT);
    expect(expected.chunks).toBeGreaterThan(COUNT); // several passages per document: a kill can land inside one

    const ctx = freshContext();
    const run = await ingestAndKill(ctx.storageDir);
    expect(run.finished).toBe(false);
    const afterCrash = contents(ctx);
    // Everything reported as committed is there (possibly a few more that committed before the signal landed).
    expect(afterCrash.documents).toBeGreaterThanOrEqual(run.reported);
    expect(afterCrash.documents).toBeLessThan(COUNT);
    for (const [name, n] of Object.entries(afterCrash.perDocument)) expect(n, name).toBe(expected.perDocument[name]);
    expect(afterCrash.searchRows).toBe(afterCrash.chunks);
    expect(afterCrash.ftsRows).toBe(afterCrash.chunks);

    const rerun = await ingestFiles(ctx, memoFiles(COUNT));
    expect(rerun).toEqual({ added: COUNT - afterCrash.documents, replaced: 0, skipped: afterCrash.documents, failed: [] });
    const final = contents(ctx);
    expect(final).toEqual(expected);
    expect(final.distinctHashes).toBe(COUNT);
    expect(final.orphanRows).toBe(0);
  });
});
