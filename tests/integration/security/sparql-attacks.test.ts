import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QueryRejectedError } from "@/lib/backends/errors";
import { createSparqlBackend, storeRdfFiles } from "@/lib/backends/sparql";
import type { KnowledgeBackend } from "@/lib/backends/types";
import { queryAttackOutcome, queryAttacks } from "../../support/attack-corpus";

/**
 * The SPARQL part of the attack corpus against the embedded Oxigraph store: refused by the checks, or
 * contained by the store's process (its deadline, its WebAssembly memory cap, the byte budgets), the
 * graph unchanged, and the server's event loop free throughout (nesting is refused before sparqljs runs).
 */

const dir = mkdtempSync(path.join(tmpdir(), "mosaic-attack-rdf-"));
let kb: KnowledgeBackend;
const TURTLE = `@prefix ex: <http://example.org/> .
ex:ada ex:name "Ada Lovelace" ; ex:country "United Kingdom" .
ex:grace ex:name "Grace Hopper" ; ex:country "United States" .
${Array.from({ length: 200 }, (_, i) => `ex:n${i} ex:value ${i} .`).join("\n")}`;

async function triples(): Promise<number> {
  const r = await kb.execute({ language: "sparql", text: "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }" });
  return Number((r.records[0].n as { value: string }).value);
}

beforeAll(async () => {
  const ctx = { kbId: "kb-attack-rdf", kbName: "Graph", storageDir: dir };
  await storeRdfFiles(ctx, [{ name: "people.ttl", bytes: Buffer.from(TURTLE) }]);
  kb = createSparqlBackend({ mode: "embedded" }, {}, ctx);
});

afterAll(async () => {
  await kb.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the SPARQL attack corpus against the embedded store", () => {
  const cases = queryAttacks("sparql");

  it.each(cases.map((c) => [c.name, c] as const))("%s: refused or contained, the graph unchanged", async (_, attack) => {
    const before = await triples();
    let turns = 0;
    const ticker = setInterval(() => turns++, 10);
    const started = performance.now();
    const outcome = await queryAttackOutcome(attack, () =>
      kb.execute({ language: "sparql", text: attack.text }, { timeoutMs: attack.timeoutMs ?? 5_000 }),
    ).finally(() => clearInterval(ticker));
    expect(outcome).toMatch(attack.says);
    expect(outcome).not.toMatch(/unreachable|RuntimeError|RangeError|Maximum call stack/);
    // Whatever the store did, this thread kept turning (on a loaded machine timers fire late, hence the slack).
    const ms = performance.now() - started;
    if (ms > 1_000) expect(turns).toBeGreaterThan(ms / 10 / 8);
    expect(await triples()).toBe(before);
  });

  it("2,000 nested groups are a typed refusal in milliseconds, not a RangeError after a second", async () => {
    const started = performance.now();
    const attempt = kb.execute({ language: "sparql", text: `SELECT * WHERE ${"{".repeat(2_000)} ?s ?p ?o ${"}".repeat(2_000)}` });
    await expect(attempt).rejects.toBeInstanceOf(QueryRejectedError);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it("answers normally after the whole corpus (a store that was killed has been replaced)", async () => {
    const r = await kb.execute({ language: "sparql", text: "SELECT ?n WHERE { <http://example.org/ada> <http://example.org/name> ?n }" });
    expect((r.records[0].n as { value: string }).value).toBe("Ada Lovelace");
  });
});
