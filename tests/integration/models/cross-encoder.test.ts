import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalModelRuntime } from "@/lib/models/local-runtime";
import type { CrossEncoder, Embedder } from "@/lib/models/types";
import { crossEncoderScorer, scorersFor, sigmoid } from "@/lib/pipeline/scorers";
import { poolEvidence } from "@/lib/pipeline/stages/pool/classical";
import { classicalRerank } from "@/lib/pipeline/stages/rerank/classical";
import { EMBEDDER, SHARED_MODELS_DIR, fixtureModels, sharedModelsAvailable } from "@/tests/support/models/fixtures";
import { context, intent, passage } from "@/tests/unit/pipeline/select-fixtures";

const fixtures = sharedModelsAvailable() ? fixtureModels() : { dir: null, reason: "the shared models are missing" };
const cache = mkdtempSync(path.join(tmpdir(), "mosaic-ce-"));

const QUESTION = "When did the Oslo store open?";
const PASSAGES = [
  "The Oslo store opened on March 3, 2021 after a long renovation.",
  "Tents and sleeping bags are sold in the Bergen store.",
  "Quarterly revenue grew by 12 percent compared with last year.",
  "The warranty covers manufacturing defects for two years.",
];
const DOCS = ["kb-docs", "Aurora policies and reports"] as const;

/**
 * The fixture cross-encoder (tests/support/models/build_fixture_models.py) is the shared embedder's
 * first layer with a random one-logit head: its scores mean nothing, so these tests check what the
 * runtime and the scorer do with any sequence-classification model: pairs kept together and in
 * order, requests batched, results in input order, and the fallback when the model fails.
 */
describe.skipIf(!fixtures.dir)("cross-encoder slot with a sequence-classification ONNX model", () => {
  let runtime: LocalModelRuntime;
  let model: CrossEncoder;
  let embedder: Embedder;

  beforeAll(async () => {
    // The cross-encoder from the fixtures folder, the embedder from the shared one: MODELS_DIR is one folder, so both are linked side by side.
    const { symlinkSync, mkdirSync } = await import("node:fs");
    const models = path.join(cache, "models");
    mkdirSync(models);
    symlinkSync(path.join(fixtures.dir!, "tiny-cross-encoder"), path.join(models, "tiny-cross-encoder"));
    symlinkSync(path.join(SHARED_MODELS_DIR, EMBEDDER), path.join(models, EMBEDDER));
    runtime = new LocalModelRuntime({
      precision: "int8",
      embedder: EMBEDDER,
      crossEncoder: "tiny-cross-encoder",
      locations: { modelsDir: models, cacheDir: path.join(cache, "downloads") },
      threads: 2,
      batchWaitMs: 20,
      batchSize: 8,
      queueLimit: 200,
      timeoutMs: 20_000,
    });
    model = (await runtime.crossEncoder())!;
    embedder = await runtime.embedder();
  });
  afterAll(async () => {
    await runtime?.close();
    rmSync(cache, { recursive: true, force: true });
  });

  it("loads the model named in the settings as a re-ranker, with the token limit of its tokenizer configuration", () => {
    expect(model.info).toMatchObject({
      task: "cross-encoder",
      name: "tiny-cross-encoder",
      precision: "int8",
      maxTokens: 256,
      dimensions: null,
    });
  });

  it("keeps each query with its passage, in that order: swapping the two changes the score", async () => {
    const [forward] = await model.score([[QUESTION, PASSAGES[0]]]);
    const [backward] = await model.score([[PASSAGES[0], QUESTION]]);
    expect(Number.isFinite(forward)).toBe(true);
    expect(forward).not.toBeCloseTo(backward, 4);
  });

  it("keeps concurrent int8 requests in batches of their own and returns each request's scores in its own order", async () => {
    const alone: number[] = [];
    for (const p of PASSAGES) alone.push((await model.score([[QUESTION, p]]))[0]);
    const before = (await runtime.status()).queues.crossEncoder!.batches;
    const reversed = [...PASSAGES].reverse();
    const [a, b] = await Promise.all([model.score(PASSAGES.map((p) => [QUESTION, p])), model.score(reversed.map((p) => [QUESTION, p]))]);
    // int8 activations are quantised per batch, so a pair's logit would move with another request's pairs:
    // each request runs in batches of its own (fp32 requests share batches).
    expect((await runtime.status()).queues.crossEncoder!.batches - before).toBe(2);
    // Each got its own pairs' scores back, in its own order.
    expect(b).toEqual([...a].reverse());
    // Within a request, batched against scored one by one, a logit moves slightly.
    a.forEach((s, i) => expect(s).toBeCloseTo(alone[i], 1));
  });

  it("orders the last re-ranking round by the model's probabilities", async () => {
    const q = intent(QUESTION);
    const pieces = PASSAGES.map((t, i) => passage(...DOCS, "stores", i, t));
    const logits = await model.score(pieces.map((p) => [QUESTION, p.text]));
    const ctx = context();
    const ranked = await classicalRerank.run(
      {
        intent: q,
        pool: poolEvidence({ intent: q, pieces }),
        rounds: [{ scorer: "cross-encoder", keep: 3 }],
        scorers: scorersFor({ embedder, crossEncoder: model }),
      },
      ctx,
    );
    const expected = pieces.map((p, i) => ({ id: p.id, p: sigmoid(logits[i]) })).sort((x, y) => y.p - x.p);
    expect(ranked.map((e) => e.piece.id)).toEqual(expected.slice(0, 3).map((e) => e.id));
    ranked.forEach((e, i) => expect(e.scores["cross-encoder"]).toBeCloseTo(expected[i].p, 1));
    expect(ctx.events).toEqual([expect.objectContaining({ summary: "cross-encoder: 4 → 3" })]);
  });

  it("falls back to the best fusion when the cross-encoder fails, and the trace says so", async () => {
    const q = intent(QUESTION);
    const pieces = PASSAGES.map((t, i) => passage(...DOCS, "stores", i, t));
    const failing: CrossEncoder = {
      info: model.info,
      score: async () => Promise.reject(new Error("The re-ranking model did not answer within 10000 ms.")),
    };
    const registry = {
      ...scorersFor({ embedder, crossEncoder: null }),
      "cross-encoder": crossEncoderScorer(failing, scorersFor({ embedder, crossEncoder: null })["combined-dense"]),
    };
    const ctx = context();
    const ranked = await classicalRerank.run(
      { intent: q, pool: poolEvidence({ intent: q, pieces }), rounds: [{ scorer: "cross-encoder", keep: 2 }], scorers: registry },
      ctx,
    );
    expect(ranked).toHaveLength(2);
    expect(ranked[0].piece.text).toContain("Oslo store opened");
    expect(ranked[0].scores["combined-dense"]).toBeGreaterThan(0);
    expect(ctx.events[0]).toMatchObject({
      type: "ERROR",
      summary:
        "cross-encoder failed (cross-encoder: The re-ranking model did not answer within 10000 ms.); combined-dense ran instead, 4 → 2",
    });
  });

  it("without a cross-encoder the last round is the best fusion available", async () => {
    const q = intent(QUESTION);
    const pieces = PASSAGES.map((t, i) => passage(...DOCS, "stores", i, t));
    for (const [models, fusion] of [
      [{ embedder, crossEncoder: null }, "combined-dense"],
      [{ embedder: null, crossEncoder: null }, "combined"],
    ] as const) {
      const ctx = context();
      const ranked = await classicalRerank.run(
        {
          intent: q,
          pool: poolEvidence({ intent: q, pieces }),
          rounds: [{ scorer: "cross-encoder", keep: 2 }],
          scorers: scorersFor(models),
        },
        ctx,
      );
      expect(ranked[0].score).toBe(ranked[0].scores[fusion]);
      expect(ctx.events[0].summary).toBe(`no cross-encoder is installed; ${fusion} ran in its place: 4 → 2`);
    }
  });
});
