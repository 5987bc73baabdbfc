// npm run bench -- audit [--questions N]: what the audit log costs a question (issue 29). On a fresh embedded
// database with the demo catalog: the same questions asked with no audit record, and with the `ask` record
// written as the route writes it (fire-and-forget after the answer), and the record's own write time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { flushAudit, recordAudit } from "../lib/audit/audit";
import { auditAsk } from "../lib/audit/runs";
import { closeAllBackends } from "../lib/backends/registry";
import { openAndBootstrap } from "../lib/db/bootstrap";
import { seedDemoCatalogOnce } from "../lib/demo/seed-catalog";
import { loadEnv } from "../lib/env";
import { runPipeline } from "../lib/runs/run-pipeline";
import { percentile } from "./bench-stats";

const QUESTIONS = [
  "How many orders were returned?",
  "Who is the chief executive of Aurora Outfitters GmbH?",
  "Which product has the highest price?",
  "How many customers are there?",
];

const fmt = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return `p50 ${percentile(s, 50).toFixed(2)} ms, p95 ${percentile(s, 95).toFixed(2)} ms (n=${s.length})`;
};

export async function benchAudit(args: string[]): Promise<void> {
  const n = Number(args[args.indexOf("--questions") + 1]) || 40;
  const dataDir = mkdtempSync(path.join(tmpdir(), "mosaic-bench-audit-"));
  const { handle } = await openAndBootstrap({ DATA_DIR: dataDir, SEED_DEMO: true });
  const prisma = handle.prisma;
  const deps = { dataDir, encryptionKey: Buffer.alloc(32, 7), datasetsDir: path.resolve(loadEnv().DATASETS_DIR) };
  await seedDemoCatalogOnce(prisma, deps);
  const u = await prisma.user.findUniqueOrThrow({ where: { email: "user@mosaic.local" }, include: { memberships: true } });
  const user = { id: u.id, role: "USER" as const, groupIds: u.memberships.map((m) => m.groupId) };
  const actor = { actorId: u.id, actorEmail: u.email, address: "203.0.113.9" };
  for (const q of QUESTIONS) await runPipeline(prisma, deps, { question: q, user }); // warm-up

  const plain: number[] = [];
  const audited: number[] = [];
  const callCost: number[] = [];
  for (let i = 0; i < n; i++) {
    const q = QUESTIONS[i % QUESTIONS.length];
    // Alternate, so drift in the machine's load falls on both alike.
    let t = performance.now();
    await runPipeline(prisma, deps, { question: q, user });
    plain.push(performance.now() - t);
    t = performance.now();
    const outcome = await runPipeline(prisma, deps, { question: q, user });
    const c = performance.now();
    auditAsk(actor, q, outcome, prisma);
    callCost.push(performance.now() - c);
    audited.push(performance.now() - t);
  }
  await flushAudit();
  const writes: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await recordAudit(prisma, { ...actor, action: "ask", runId: `bench-${i}`, kbIds: ["a", "b"], detail: { question: QUESTIONS[0] } });
    writes.push(performance.now() - t);
  }
  console.log(`ask, no audit record:            ${fmt(plain)}`);
  console.log(`ask, then auditAsk (as the route): ${fmt(audited)}`);
  console.log(`auditAsk call on the request path: ${fmt(callCost)}`);
  console.log(`one audit write, awaited (background in the app): ${fmt(writes)}`);
  await closeAllBackends();
  await handle.close();
  rmSync(dataDir, { recursive: true, force: true });
}
