// npm run guides:split -- --guides-out G.json --asked-out Q.json [--dbs a,b,…] [--seed S] [--share 0.5]
// The few-shot protocol's split of Spider dev (DATASETS_DIR/spider/dev-questions.json): per database,
// a seeded draw of its questions becomes guides (G.json, for npm run guides:import) and the rest is
// asked (Q.json, for npm run eval -- --suite spider --questions Q.json). The split is by question: a
// question text that is a guide is never asked (a text that appears twice goes to the guides' side).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { catalogDeps } from "../lib/deps";
import { readSpiderDev } from "../lib/eval/suites/spider";
import { mulberry32 } from "../lib/random";
import { runCli } from "./cli";

await runCli(async () => {
  const { values } = parseArgs({
    options: {
      "guides-out": { type: "string" },
      "asked-out": { type: "string" },
      dbs: { type: "string" },
      seed: { type: "string", default: "1" },
      share: { type: "string", default: "0.5" },
      swap: { type: "boolean" },
    },
  });
  if (!values["guides-out"] || !values["asked-out"])
    throw new Error("Say where the two halves go: npm run guides:split -- --guides-out G.json --asked-out Q.json");
  const seed = Number(values.seed);
  const share = Number(values.share);
  if (!Number.isInteger(seed)) throw new Error("--seed must be a whole number.");
  if (!(share > 0 && share < 1)) throw new Error("--share must be between 0 and 1 (the guides' share of each database's questions).");
  const items = readSpiderDev(catalogDeps().datasetsDir);
  const wanted = values.dbs ? new Set(values.dbs.split(",").map((s) => s.trim())) : null;
  const byDb = new Map<string, typeof items>();
  for (const it of items) if (!wanted || wanted.has(it.db_id)) byDb.set(it.db_id, [...(byDb.get(it.db_id) ?? []), it]);
  if (wanted) for (const db of wanted) if (!byDb.has(db)) throw new Error(`Spider dev has no questions on "${db}".`);
  const guides: typeof items = [];
  const asked: typeof items = [];
  const rand = mulberry32(seed);
  // A text asked of two databases ("How many singers do we have?") keeps the side it was first drawn to:
  // the split is by question, so no asked question is itself a guide anywhere.
  const sideOf = new Map<string, "guide" | "asked">();
  for (const [, qs] of [...byDb].sort(([a], [b]) => a.localeCompare(b))) {
    // Distinct question texts are the unit drawn (Fisher–Yates with the seed).
    const texts = [...new Set(qs.map((q) => q.question.trim()))];
    for (let i = texts.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [texts[i], texts[j]] = [texts[j], texts[i]];
    }
    const cut = Math.round(texts.length * share);
    // --swap: the other half are the guides (the protocol's "both ways").
    const drawn = new Set(values.swap ? texts.slice(cut) : texts.slice(0, cut));
    for (const t of texts) if (!sideOf.has(t)) sideOf.set(t, drawn.has(t) ? "guide" : "asked");
    for (const q of qs) (sideOf.get(q.question.trim()) === "guide" ? guides : asked).push(q);
  }
  const write = (file: string, data: unknown) => {
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    writeFileSync(path.resolve(file), `${JSON.stringify(data, null, 2)}\n`);
  };
  write(
    values["guides-out"],
    guides.map((q) => ({ db_id: q.db_id, question: q.question, query: q.query })),
  );
  write(
    values["asked-out"],
    asked.map((q) => ({ db_id: q.db_id, question: q.question, query: q.query })),
  );
  console.log(
    `${byDb.size} databases: ${guides.length} guides → ${values["guides-out"]}, ${asked.length} asked → ${values["asked-out"]} (seed ${seed}).`,
  );
});
