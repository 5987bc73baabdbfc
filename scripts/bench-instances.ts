// npm run bench -- instances [--questions N] [--clients N] [--models on]: two app instances (production build,
// each its own DATA_DIR) on one throw-away PostgreSQL server and one OpenSearch test node (Java 17 + Maven,
// tests/support/opensearch), behind a round-robin client. SciFact abstracts (those cited by the first training
// claims, then others up to --documents, 500) are uploaded through instance A as a collection on OpenSearch; then N claims (200) are asked by
// C concurrent clients (10), each question sent to the next instance in turn, signed in once on A.
// Prints ask latency p50/p95 (whole streamed run, client side), errors, and how many went to each instance.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { SCIFACT_CORPUS } from "../lib/ingest/benchmarks/scifact";
import { parsePythonStringList } from "../lib/ingest/benchmarks/python-string-list";
import { DEMO_USERS } from "../lib/db/seed";
import { loadEnv } from "../lib/env";
import { AppClient } from "../tests/support/app-client";
import type { AppServer } from "../tests/support/app-server";
import { type SharedServices, startInstance, startSharedServices } from "../tests/support/instances";
import { buildIfNeeded } from "./build-if-needed";
import { percentile } from "./bench-stats";

const args = process.argv.slice(2);
const argOf = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const QUESTIONS = Number(argOf("--questions") ?? 200);
const CLIENTS = Number(argOf("--clients") ?? 10);
const MODELS = argOf("--models") === "on";
const DOCUMENTS = Number(argOf("--documents") ?? 500);

/** The first N training claims, and the abstracts they cite with others up to `documents`, as upload files. */
function scifactSample(datasets: string, n: number, documents: number): { claims: string[]; files: { name: string; bytes: Buffer }[] } {
  const claims = (
    parse(readFileSync(path.join(datasets, "scifact", "claims_train.csv")), { columns: true }) as { claim: string; cited_doc_ids: string }[]
  )
    .filter((c) => c.claim)
    .slice(0, n);
  const cited = new Set(
    claims.flatMap((c) =>
      c.cited_doc_ids
        .replace(/[[\]\s]/g, "")
        .split(",")
        .filter(Boolean),
    ),
  );
  const corpus = parse(readFileSync(path.join(datasets, SCIFACT_CORPUS)), { columns: true, skip_empty_lines: true }) as {
    doc_id: string;
    title: string;
    abstract: string;
  }[];
  const others = corpus.filter((d) => !cited.has(d.doc_id)).slice(0, Math.max(0, documents - cited.size));
  const files = [...corpus.filter((d) => cited.has(d.doc_id)), ...others].map((d) => ({
    name: `scifact-${d.doc_id}.txt`,
    bytes: Buffer.from(`${d.title}\n\n${parsePythonStringList(d.abstract).join(" ")}\n`),
  }));
  return { claims: claims.map((c) => c.claim), files };
}

async function ask(
  server: AppServer,
  cookie: string,
  question: string,
  kbId: string,
): Promise<{ ms: number; error: string | null; refrained: boolean }> {
  const t = performance.now();
  try {
    const res = await fetch(`${server.baseUrl}/api/runs`, {
      method: "POST",
      headers: { Cookie: cookie, "Content-Type": "application/json" },
      body: JSON.stringify({ question, kbIds: [kbId] }),
    });
    const text = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 200) return { ms, error: `HTTP ${res.status}`, refrained: false };
    const last = JSON.parse(text.trim().split("\n").at(-1)!) as { result?: { refrained: boolean }; error?: { message: string } };
    return { ms, error: last.error ? last.error.message : null, refrained: !!last.result?.refrained };
  } catch (e) {
    return { ms: performance.now() - t, error: (e as Error).message, refrained: false };
  }
}

export async function benchInstances(): Promise<void> {
  const datasets = path.resolve(loadEnv().DATASETS_DIR);
  const sample = scifactSample(datasets, QUESTIONS, DOCUMENTS);
  if (!buildIfNeeded()) throw new Error("next build failed");
  console.log(
    `Mosaic bench: instances (node ${process.version}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")})`,
  );
  let shared: SharedServices | undefined;
  const servers: AppServer[] = [];
  try {
    shared = await startSharedServices();
    // All clients ask as one admin: allow them all at once (fair use would otherwise refuse the excess with 429).
    const modelEnv: Record<string, string> = {
      RUNS_MAX_CONCURRENT: String(Math.max(3, CLIENTS)),
      ...(MODELS ? { MODELS_ENABLED: "true", MODEL_WORKERS: "1", MODELS_PRECISION: "int8" } : { MODELS_ENABLED: "false" }),
    };
    const s = shared;
    servers.push(...(await Promise.all([startInstance(s, modelEnv), startInstance(s, modelEnv)])));
    const [a] = servers;
    console.log(
      `PostgreSQL ${shared.postgres.url}, OpenSearch ${shared.opensearch.url}, instances ${servers.map((x) => x.baseUrl).join(" and ")}`,
    );
    const admin = DEMO_USERS.find((u) => u.role === "ADMIN")!;
    const cookie = await new AppClient(a!.baseUrl).signIn(admin.email, admin.password);
    const t0 = performance.now();
    const reg = await new AppClient(a!.baseUrl).register(
      cookie,
      { kind: "DOCUMENTS", name: "SciFact sample", connection: { language: "en", engine: "opensearch", opensearch: { replicas: 0 } } },
      sample.files,
    );
    if (reg.status !== 201) throw new Error(`registering the collection failed: ${JSON.stringify(reg.json)}`);
    const kbId = reg.json!.id as string;
    console.log(`registered ${sample.files.length} SciFact abstracts through A in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // Warm both instances (route compilation caches, the collection opened) outside the measurement.
    for (const server of servers) await ask(server, cookie, "warm up", kbId);

    let next = 0;
    const results: { ms: number; error: string | null; refrained: boolean; instance: number }[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < sample.claims.length) {
          const i = next++;
          const instance = i % servers.length;
          results.push({ ...(await ask(servers[instance]!, cookie, sample.claims[i]!, kbId)), instance });
        }
      }),
    );
    const wallS = (performance.now() - started) / 1000;
    const ms = results.map((r) => r.ms).sort((x, y) => x - y);
    const errors = results.filter((r) => r.error);
    console.log({
      questions: results.length,
      clients: CLIENTS,
      instances: servers.length,
      models: MODELS ? "on" : "off",
      askP50ms: Math.round(percentile(ms, 50)),
      askP95ms: Math.round(percentile(ms, 95)),
      askMaxMs: Math.round(ms.at(-1) ?? NaN),
      errors: errors.length,
      refrained: results.filter((r) => r.refrained).length,
      perInstance: servers.map((_, i) => results.filter((r) => r.instance === i).length),
      questionsPerSecond: +(results.length / wallS).toFixed(2),
      wallS: +wallS.toFixed(1),
      loadAfter: loadavg().map((l) => +l.toFixed(2)),
    });
    for (const e of errors.slice(0, 5)) console.log(`error: ${e.error}`);
  } finally {
    for (const server of servers) await server.stop().catch(() => undefined);
    await shared?.stop();
  }
}
