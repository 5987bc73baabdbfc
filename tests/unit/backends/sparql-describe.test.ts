import { describe, expect, it } from "vitest";
import { DESCRIPTOR_MAX_CHARS } from "@/lib/backends/descriptor";
import { QueryTimeoutError } from "@/lib/backends/errors";
import { renderDescriptor, renderSourceUnits } from "@/lib/backends/sparql/describe";
import type { EngineResult, SparqlEngine } from "@/lib/backends/sparql/engine";
import { summarizeGraph } from "@/lib/backends/sparql/graph-summary";
import type { RdfTerm } from "@/lib/backends/sparql/rdf-terms";

/** A fake endpoint: answers some queries from a table, times out on the rest (like a large public endpoint). */
function fakeEngine(answer: (q: string) => Record<string, RdfTerm>[] | "timeout"): SparqlEngine & { queries: string[] } {
  const queries: string[] = [];
  return {
    target: "fake",
    queries,
    async run(query: string): Promise<EngineResult> {
      queries.push(query);
      const rows = answer(query);
      if (rows === "timeout") throw new QueryTimeoutError(10, query);
      return { kind: "bindings", vars: rows[0] ? Object.keys(rows[0]) : [], rows };
    },
    async close() {},
  };
}

const iri = (value: string): RdfTerm => ({ termType: "NamedNode", value });
const n = (value: number): RdfTerm => ({ termType: "Literal", value: String(value), datatype: "http://www.w3.org/2001/XMLSchema#integer" });
const WD = "http://www.wikidata.org/entity/";
const WDT = "http://www.wikidata.org/prop/direct/";

describe("summarizeGraph against an endpoint that times out", () => {
  it("falls back to sampled counts, keeps what it got, and says so in the descriptor", async () => {
    const engine = fakeEngine((q) => {
      const sampled = q.includes("LIMIT 10000");
      if (q.startsWith("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")) return "timeout";
      if (q.startsWith("SELECT ?c") && !sampled) return "timeout";
      if (q.startsWith("SELECT ?c") && sampled)
        return [
          { c: iri(`${WD}Q5`), n: n(9000) },
          { c: iri(`${WD}Q6256`), n: n(1000) },
        ];
      if (q.startsWith("SELECT ?p (COUNT(*)") && !sampled) return "timeout";
      if (q.startsWith("SELECT ?p (COUNT(*)") && sampled)
        return [
          { p: iri(`${WDT}P27`), n: n(7000) },
          { p: iri(`${WDT}P31`), n: n(3000) },
        ];
      if (q.startsWith("SELECT ?p ?c") || q.startsWith("SELECT ?p ?dt")) return "timeout";
      if (q.startsWith("SELECT ?s ?o")) return [{ s: iri(`${WD}Q42`), o: iri(`${WD}Q145`) }];
      if (q.startsWith("SELECT ?r ?lp ?label")) {
        const label = (r: string, l: string) => ({
          r: iri(r),
          lp: iri("http://www.w3.org/2000/01/rdf-schema#label"),
          label: { termType: "Literal" as const, value: l, language: "en" },
        });
        return [
          label(`${WD}Q5`, "human"),
          label(`${WDT}P27`, "country of citizenship"),
          label(`${WD}Q42`, "Douglas Adams"),
          label(`${WD}Q145`, "United Kingdom"),
        ];
      }
      throw new Error(`unexpected query ${q}`);
    });
    const summary = await summarizeGraph(engine, { stepTimeoutMs: 8_000 });
    expect(summary.triples).toBeNull();
    expect(summary.classes.map((c) => [c.label, c.instances])).toEqual([
      ["human", 9000],
      [undefined, 1000],
    ]);
    expect(summary.notes).toEqual([
      "The endpoint did not count its triples within 8 s.",
      "Instance counts are from a sample of 10,000 typed resources (the full count took longer than 8 s).",
      "Predicate counts are from a sample of 10,000 triples (the full count took longer than 8 s).",
      "Some domains and ranges are missing: the endpoint did not answer within 8 s.",
    ]);

    const d = renderDescriptor(summary, { kbName: "Wikidata", engine: "SPARQL endpoint https://query.wikidata.org/sparql" });
    expect(d.text).toContain("): 2 classes, 2 predicates.");
    expect(d.text).toContain(`PREFIX wd: <${WD}>`);
    expect(d.text).toContain('- wd:Q5 "human" (9,000)');
    expect(d.text).toContain('- wdt:P27 "country of citizenship" (7,000)');
    expect(d.text).toContain("- wd:Q42 wdt:P27 wd:Q145 .  # Douglas Adams — country of citizenship — United Kingdom");
    expect(d.text).toMatch(/Notes:\n- The endpoint did not count its triples/);
    expect(d.stats.triples).toBe(-1);
    expect(renderSourceUnits(summary).map((u) => u.description)).toEqual([
      "Class human: 9,000 instances.",
      "Class Q6256: 1,000 instances.",
    ]);
  });

  it("bounds the descriptor of a graph with very many classes and predicates", async () => {
    const engine = fakeEngine((q) => {
      if (q.startsWith("SELECT ?c"))
        return Array.from({ length: 200 }, (_, i) => ({
          c: iri(`http://example.org/vocabulary/with/a/long/path/AVeryLongClassNameForTestingBounds${i}`),
          n: n(1000 - i),
        }));
      if (q.startsWith("SELECT ?p (COUNT"))
        return Array.from({ length: 300 }, (_, i) => ({
          p: iri(`http://example.org/vocabulary/with/a/long/path/aVeryLongPropertyNameThatKeepsGoing${i}`),
          n: n(5000 - i),
        }));
      if (q.startsWith("SELECT (COUNT")) return [{ n: n(123456) }];
      return [];
    });
    const d = renderDescriptor(await summarizeGraph(engine, { stepTimeoutMs: 1000 }), { kbName: "Big", engine: "test" });
    expect(d.text.length).toBeLessThanOrEqual(DESCRIPTOR_MAX_CHARS);
    expect(d.text).toContain("123,456 triples, 200 classes, 300 predicates");
    expect(d.text).toMatch(/… \(\d+ more lines omitted\)$/);
    // Every query the summary sent is bounded by a LIMIT or is a single aggregate.
    for (const q of engine.queries) expect(q, q).toMatch(/LIMIT \d+\s*$|^SELECT \(COUNT\(\*\) AS \?n\) WHERE \{ \?s \?p \?o \}$/);
  });
});
