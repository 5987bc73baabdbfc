import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import { drainJobs } from "@/lib/server/job-processor";
import { LocalModelRuntime } from "@/lib/models/local-runtime";
import { type ModelHandles, handlesFrom } from "@/lib/models/runtime";
import { textEmbeddings } from "@/lib/models/text-embeddings";
import { createGuide } from "@/lib/guides/create";
import { findNearestGuides } from "@/lib/guides/retrieval";
import type { RunEvent } from "@/lib/pipeline/run";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { catalogTexts } from "@/lib/ingest/catalog-embeddings.handler";
import { columnSemanticText } from "@/lib/catalog/semantic-texts";
import { EMBEDDER, SHARED_MODELS_DIR, fixtureModels, sharedModelsAvailable } from "@/tests/support/models/fixtures";
import { type DemoWorkspace, DOCS, SALES, openDemoWorkspace } from "../llm/demo-fixture";

/**
 * Runs of the whole pipeline on the demo catalog with the models: the collection embedded by its job,
 * semantic signals in the trace, hybrid evidence; a guide found by a paraphrase; and, with a broken
 * embedder, the same questions answered classically with the reason traced.
 */
describe.skipIf(!sharedModelsAvailable())("answering pipeline with the model runtime (demo catalog)", () => {
  let ws: DemoWorkspace;
  let runtime: LocalModelRuntime;
  let models: ModelHandles;
  const scratch = mkdtempSync(path.join(tmpdir(), "mosaic-run-models-"));
  const runtimeFor = (modelsDir: string, options: { crossEncoder?: string; timeoutMs?: number } = {}) =>
    new LocalModelRuntime({
      precision: "int8",
      embedder: EMBEDDER,
      crossEncoder: options.crossEncoder ?? null,
      locations: { modelsDir, cacheDir: path.join(scratch, "cache") },
      threads: 1,
      batchWaitMs: 2,
      batchSize: 32,
      queueLimit: 1000,
      timeoutMs: options.timeoutMs ?? 20_000,
    });
  /** MODELS_DIR with the shared embedder and the fixture cross-encoder side by side. */
  const withCrossEncoder = () => {
    const dir = path.join(scratch, "with-cross-encoder");
    mkdirSync(dir, { recursive: true });
    symlinkSync(path.join(SHARED_MODELS_DIR, EMBEDDER), path.join(dir, EMBEDDER));
    symlinkSync(path.join(fixtureModels().dir!, "tiny-cross-encoder"), path.join(dir, "tiny-cross-encoder"));
    return dir;
  };

  beforeAll(async () => {
    const saved = process.env.MODELS_ENABLED;
    process.env.MODELS_ENABLED = "true";
    process.env.MODEL_WORKERS = "1";
    try {
      ws = await openDemoWorkspace();
      // Seeding queued the demo collection's embedding job; no server runs here, so it runs now.
      await drainJobs({ prisma: ws.handle.prisma, deps: ws.deps }, { exclusive: ws.db.env.DATABASE_URL === undefined });
    } finally {
      process.env.MODELS_ENABLED = saved;
      delete process.env.MODEL_WORKERS;
    }
    runtime = runtimeFor(SHARED_MODELS_DIR);
    models = await handlesFrom(runtime);
  }, 180_000);
  afterAll(async () => {
    await runtime?.close();
    const { shutdownModels } = await import("@/lib/models/runtime");
    await shutdownModels();
    await closeAllBackends();
    await ws?.handle.close();
    await ws?.db.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("answers a document question from a hybrid search and ranks with the embedder, as the trace shows", async () => {
    const events: RunEvent[] = [];
    const o = await runPipeline(ws.handle.prisma, ws.deps, {
      question: "What percentage of products contained recycled or certified materials in 2025?",
      user: ws.user,
      models,
      onEvent: (e) => events.push(e),
    });
    expect(o.answer.text).toMatch(/68\s*(percent|%)/);
    expect(events.map((e) => e.summary)).toEqual(
      expect.arrayContaining([
        "Models: semantic ranking with all-MiniLM-L6-v2 (int8); no cross-encoder installed.",
        expect.stringMatching(
          /^hybrid \(hybrid-entity\): \d+ → \d+(; kept the search engine's order: .+|; reordered search results on new evidence)?$/,
        ),
        expect.stringMatching(
          /^no cross-encoder is installed; combined-dense ran in its place: \d+ → \d+(; kept the search engine's order: .+|; reordered search results on new evidence)?$/,
        ),
      ]),
    );
    const passage = o.evidence.find((e) => e.piece.kind === "passage" && e.piece.provenance.kbName === DOCS)!;
    expect(passage.piece.provenance.query).toMatch(
      /\n\[hybrid search: BM25 \(SQLite FTS5\) \+ vector similarity \(all-MiniLM-L6-v2, int8\), weighted blend of normalised BM25 and cosine similarity, weights BM25 0.50 : vector 0.50/,
    );
    expect(passage.scores["combined-dense:dense"]).toBeGreaterThan(0);
    // Catalog texts were embedded once and stored for every later run and instance.
    expect(await ws.handle.prisma.textEmbedding.count()).toBeGreaterThan(0);
  });

  it("the catalog job embedded the SQL tables' column texts ahead of any question", async () => {
    const city = columnSemanticText("customers", "city");
    expect(city).toBe("city of customers");
    expect(await catalogTexts(ws.handle.prisma)).toContain(city);
    const [vector] = await textEmbeddings(ws.handle.prisma, models.embedder!).stored([city]);
    expect(vector).not.toBeNull();
  });

  it("finds an extraction guide asked in other words", async () => {
    const sales = await ws.kbId(SALES);
    await createGuide(ws.handle.prisma, ws.admin, {
      question: "Which customers are in Munich?",
      sources: [
        {
          kbId: sales,
          actions: [
            { kind: "NATIVE_QUERY", params: { query: { language: "sql", text: "SELECT name FROM customers WHERE city = 'Munich'" } } },
          ],
        },
      ],
    });
    const paraphrase = "Which of our clients have their offices in Munich?";
    const [lexical] = await findNearestGuides(ws.handle.prisma, ws.admin, paraphrase, [sales]);
    const [semantic] = await findNearestGuides(ws.handle.prisma, ws.admin, paraphrase, [sales], 3, 0.2, {
      embedder: models.embedder!,
      texts: textEmbeddings(ws.handle.prisma, models.embedder!),
    });
    expect(semantic.question).toBe("Which customers are in Munich?");
    expect(semantic.score).toBeGreaterThan(lexical?.score ?? 0);
  });

  it.skipIf(!fixtureModels().dir)("with a broken embedder keeps answering classically and says why", async () => {
    const broken = path.join(scratch, "broken");
    cpSync(path.join(fixtureModels().dir!, "wrong-width-embedder"), path.join(broken, EMBEDDER), { recursive: true });
    const brokenRuntime = runtimeFor(broken);
    try {
      const handles = await handlesFrom(brokenRuntime);
      expect(handles.embedder).toBeNull();
      const events: RunEvent[] = [];
      const o = await runPipeline(ws.handle.prisma, ws.deps, {
        question: "How many orders were returned?",
        user: ws.user,
        models: handles,
        onEvent: (e) => events.push(e),
      });
      expect(o.answer.text).toMatch(/^7\b/);
      expect(events.map((e) => e.summary)).toContainEqual(
        expect.stringMatching(
          /^Ranking is classical: The embedding model is unavailable, so ranking is lexical only: .*model_quantized\.onnx produces 16-dimensional vectors/,
        ),
      );
      expect(events.map((e) => e.summary)).toContainEqual(expect.stringMatching(/^hybrid \(bm25-entity\): /));
    } finally {
      await brokenRuntime.close();
    }
  });

  describe.skipIf(!fixtureModels().dir)("with a cross-encoder installed (the fixture's: its scores mean nothing)", () => {
    let modelsDir: string;
    beforeAll(() => {
      modelsDir = withCrossEncoder();
    });

    it("the last re-ranking round is the cross-encoder's", async () => {
      const crossRuntime = runtimeFor(modelsDir, { crossEncoder: "tiny-cross-encoder" });
      try {
        const handles = await handlesFrom(crossRuntime);
        expect(handles.crossEncoder?.info.name).toBe("tiny-cross-encoder");
        const events: RunEvent[] = [];
        const o = await runPipeline(ws.handle.prisma, ws.deps, {
          question: "What percentage of products contained recycled or certified materials in 2025?",
          user: ws.user,
          models: handles,
          onEvent: (e) => events.push(e),
        });
        const summaries = events.map((e) => e.summary);
        expect(summaries).toContainEqual(expect.stringMatching(/^Models: .*all-MiniLM-L6-v2 \(int8\).*tiny-cross-encoder/));
        expect(summaries).toContainEqual(
          expect.stringMatching(
            /^cross-encoder: \d+ → \d+(; kept the search engine's order: .+|; reordered search results on new evidence)?$/,
          ),
        );
        const passages = o.evidence.filter((e) => e.piece.kind === "passage");
        expect(passages.length).toBeGreaterThan(0);
        for (const e of passages) expect(e.scores["cross-encoder"]).toBeGreaterThanOrEqual(0);
      } finally {
        await crossRuntime.close();
      }
    });

    it("when the models stop answering mid-run, each round's fallback keeps the run going and the trace says so", async () => {
      // Both models load, then every request runs past a 1 ms limit (a batch waits 2 ms): the failures happen while the run scores.
      const slowRuntime = runtimeFor(modelsDir, { crossEncoder: "tiny-cross-encoder", timeoutMs: 1 });
      try {
        const handles = await handlesFrom(slowRuntime);
        expect(handles.embedder).not.toBeNull();
        expect(handles.crossEncoder).not.toBeNull();
        const events: RunEvent[] = [];
        const o = await runPipeline(ws.handle.prisma, ws.deps, {
          question: "What percentage of products contained recycled or certified materials in 2025?",
          user: ws.user,
          models: handles,
          onEvent: (e) => events.push(e),
        });
        expect(o.answer.text).toMatch(/68\s*(percent|%)/);
        const rerank = events.filter((e) => e.stage === "rerank");
        expect(rerank.map((e) => e.summary)).toEqual(
          expect.arrayContaining([
            expect.stringMatching(
              /^hybrid-entity failed \(hybrid-entity: The embedding model \(all-MiniLM-L6-v2\) did not answer within 1 ms\.\); bm25-entity ran instead, \d+ → \d+(; .+)?$/,
            ),
            expect.stringMatching(
              /^cross-encoder failed \(cross-encoder: The re-ranking model \(tiny-cross-encoder\) did not answer within 1 ms\.; combined-dense: The embedding model \(all-MiniLM-L6-v2\) did not answer within 1 ms\.\); combined ran instead, \d+ → \d+(; .+)?$/,
            ),
          ]),
        );
        expect(rerank.filter((e) => e.summary.includes("failed")).every((e) => e.type === "ERROR")).toBe(true);
        expect(o.evidence.find((e) => e.piece.kind === "passage")?.scores).toHaveProperty("combined");
      } finally {
        await slowRuntime.close();
      }
    });
  });
});
