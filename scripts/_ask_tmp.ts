import { readFileSync } from "node:fs";
import { analyzeConstructs } from "../lib/pipeline/stages/understand/constructs";
const dev = JSON.parse(readFileSync("/work/shared/datasets/spider/dev-questions.json", "utf8")) as { question: string; query: string }[];
const n = Number(process.argv[2] ?? 40);
const off = Number(process.argv[3] ?? 0);
for (const q of dev.slice(off, off + n)) {
  const c = analyzeConstructs(q.question);
  console.log(`${q.question}\n   ASK: [${c.ask?.text}] counts=${JSON.stringify(c.counts.map((x) => `${x.op}${x.value} ${x.noun}`))} ties=${c.ties} distinct=${c.distinct} conn=${c.connectives.map((x) => x.kind).join(",")} neg=${c.negations.map((x) => x.cue + ":" + x.scope).join("|")}\n   GOLD: ${q.query}`);
}
