import { spawn } from "node:child_process";
import path from "node:path";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexPath } from "@/lib/backends/documents";
import { closeAllBackends, kbStorageDir, openBackend, type KbRecord } from "@/lib/backends/registry";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { drainJobs } from "@/lib/server/job-processor";
import { latestJobsOfKb } from "@/lib/jobs/queue";
import { modelsEnv, resolveModels, shutdownModels } from "@/lib/models/runtime";
import { applyModelSettings } from "@/lib/settings/model-settings";
import { SHARED_MODELS_DIR, sharedModelsAvailable } from "@/tests/support/models/fixtures";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/** Short one-sentence notes: many rows, quick to embed, so a kill lands mid-job. */
const NOTES = 400;
const KILL_AT = 128;
const PROJECTS = ["bridge repair", "library roof", "harbour lights", "school garden", "river survey"];
const notes = () =>
  Array.from({ length: NOTES }, (_, i) => ({
    name: `note-${String(i).padStart(4, "0")}.txt`,
    bytes: Buffer.from(`Note ${i}: the committee approved budget line ${1000 + i} for the ${PROJECTS[i % PROJECTS.length]} project.`),
  }));
const ENV = { MODELS_ENABLED: "true", MODELS_DIR: SHARED_MODELS_DIR, MODEL_WORKERS: "1", MODELS_PRECISION: "int8" };

/** What the collection's vectors look like on disk, read directly. */
function vectors(file: string) {
  const db = new Database(file, { readonly: true });
  sqliteVec.load(db);
  try {
    return {
      rows: db.prepare("SELECT count(*) FROM search_rows").pluck().get() as number,
      vectors: db.prepare("SELECT count(*) FROM search_vectors").pluck().get() as number,
      distinct: db.prepare("SELECT count(DISTINCT rowid) FROM search_vectors").pluck().get() as number,
      withoutVector: db
        .prepare("SELECT count(*) FROM search_rows WHERE rowid NOT IN (SELECT rowid FROM search_vectors)")
        .pluck()
        .get() as number,
      model: db.prepare("SELECT value FROM meta WHERE key = 'embedding_model'").pluck().get() as string,
      first: db.prepare("SELECT rowid, embedding FROM search_vectors ORDER BY rowid LIMIT 3").all() as {
        rowid: number;
        embedding: Buffer;
      }[],
    };
  } finally {
    db.close();
  }
}

/** Runs the job in a child process on the same embedded database and SIGKILLs it once KILL_AT vectors are committed. */
function embedAndKill(dataDir: string, file: string, databaseUrl: string | undefined): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", path.resolve("tests/fixtures/jobs/drain-child.ts"), dataDir], {
    // The child works on the test's own database: PGlite in DATA_DIR, or the PostgreSQL one under test:services.
    env: { ...process.env, ...ENV, LOG_LEVEL: "silent", ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const poll = setInterval(() => {
    try {
      if (vectors(file).vectors >= KILL_AT) child.kill("SIGKILL");
    } catch {
      // The table is being created; try again.
    }
  }, 25);
  return new Promise((resolve, reject) => {
    child.on("exit", (code, signal) => {
      clearInterval(poll);
      if (signal === "SIGKILL") resolve();
      else reject(new Error(`the job finished (${code}) before it could be killed: ${output}`));
    });
  });
}

describe.skipIf(!sharedModelsAvailable())("embedding a collection as a background job (PGlite, SQLite + sqlite-vec, onnxruntime)", () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let kb: KbRecord;
  let file: string;
  const saved = { ...process.env };
  const deps = () => ({ dataDir: db.env.DATA_DIR, encryptionKey: Buffer.alloc(32, 7), datasetsDir: "/nonexistent" });

  beforeAll(async () => {
    Object.assign(process.env, ENV);
    db = await createTestDatabase({ seed: false });
    handle = (await openAndBootstrap(db.env)).handle;
    const { id } = await registerKnowledgeBase(
      handle.prisma,
      deps(),
      null,
      { kind: "DOCUMENTS", name: "Committee notes", description: "Budget notes.", connection: { language: "en" }, groupIds: [] },
      notes(),
    );
    kb = { ...(await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id } })), kind: "DOCUMENTS" };
    file = indexPath({ kbId: id, kbName: kb.name, storageDir: kbStorageDir(db.env.DATA_DIR, id) });
  }, 120_000);
  afterAll(async () => {
    await closeAllBackends();
    await shutdownModels();
    await handle?.close();
    await db?.cleanup();
    process.env = saved;
  });

  it("registering the collection queued its embedding job, shown with its progress", async () => {
    const [job] = await latestJobsOfKb(handle.prisma, kb.id);
    expect(job).toMatchObject({
      kind: "documents.embed",
      status: "QUEUED",
      message: "Waiting to embed the collection for semantic search.",
    });
  });

  it("resumes after the process running it is killed: every row gets one vector, none is computed again", async () => {
    // PGlite is one process's: the child opens the database, so this test lets go of it meanwhile.
    await handle.close();
    await embedAndKill(db.env.DATA_DIR, file, db.env.DATABASE_URL);
    const killed = vectors(file);
    expect(killed.vectors).toBeGreaterThanOrEqual(KILL_AT);
    expect(killed.vectors).toBeLessThan(killed.rows);

    handle = (await openAndBootstrap(db.env)).handle;
    const [orphan] = await latestJobsOfKb(handle.prisma, kb.id);
    expect(orphan).toMatchObject({ status: "RUNNING", progressDone: expect.any(Number) });
    await drainJobs({ prisma: handle.prisma, deps: deps() }, { exclusive: true });

    const done = vectors(file);
    expect(done).toMatchObject({ vectors: done.rows, distinct: done.rows, withoutVector: 0, model: "all-MiniLM-L6-v2@int8:d43d6b239de5" });
    // Committed vectors were kept byte for byte (an int8 re-embedding in another batch would differ).
    expect(done.first).toEqual(killed.first);
    const [job] = await latestJobsOfKb(handle.prisma, kb.id);
    expect(job).toMatchObject({
      status: "SUCCEEDED",
      attempts: 2,
      progressDone: done.rows,
      progressTotal: done.rows,
      message: `${done.rows.toLocaleString("en")} passages and table rows embedded with all-MiniLM-L6-v2 (int8).`,
    });
  });

  it("searches hybrid once the vectors are there, and the native query says so", async () => {
    const models = await resolveModels(handle.prisma);
    const backend = openBackend(kb, deps());
    const result = await backend.execute(
      { language: "search", text: "Which budget line did the committee approve for the harbour lights?" },
      { maxRows: 5, timeoutMs: 10_000, embedder: models.embedder },
    );
    const [top] = backend.verbalize(result);
    expect(top.provenance.query).toBe(
      "Which budget line did the committee approve for the harbour lights?\n[hybrid search: BM25 (SQLite FTS5) + vector similarity (all-MiniLM-L6-v2, int8), weighted blend of normalised BM25 and cosine similarity, weights BM25 0.50 : vector 0.50]",
    );
    const lexical = await backend.execute(
      { language: "search", text: "Which budget line did the committee approve for the harbour lights?" },
      { maxRows: 5, timeoutMs: 10_000 },
    );
    expect(backend.verbalize(lexical)[0].provenance.query).toBe("Which budget line did the committee approve for the harbour lights?");
    // Formulation searches BM25 with keywords and the vectors with the question in plain words; the panel says which.
    const question = "Which budget line did the committee approve for the harbour lights?";
    const keywords = await backend.execute(
      { language: "search", text: "budget line committee approve harbour lights", semantic: question },
      { maxRows: 5, timeoutMs: 10_000, embedder: models.embedder },
    );
    expect(backend.verbalize(keywords)[0].provenance.query).toBe(
      `budget line committee approve harbour lights\n[hybrid search: BM25 (SQLite FTS5) + vector similarity (all-MiniLM-L6-v2, int8), weighted blend of normalised BM25 and cosine similarity, weights BM25 0.50 : vector 0.50; vector similarity to "${question}"]`,
    );
  });

  it("embeds the collection again when the admin switches the precision", async () => {
    const { queued } = await applyModelSettings(handle.prisma, modelsEnv(), {
      enabled: true,
      precision: "fp32",
      embedder: "",
      crossEncoder: "",
    });
    expect(queued).toBe(1);
    await drainJobs({ prisma: handle.prisma, deps: deps() }, { exclusive: true });
    const after = vectors(file);
    expect(after).toMatchObject({ vectors: after.rows, withoutVector: 0, model: "all-MiniLM-L6-v2@fp32:978114613d39" });
  });
});
