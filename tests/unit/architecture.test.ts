import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ALLOWED_UPWARD, LAYERS } from "@/layers.config.mjs";

/**
 * The layer order and the absence of import cycles (layers.config.mjs), over the whole graph with
 * type-only and dynamic imports included (ESLint's import/no-cycle skips `import type`), and a check
 * that the lint rules themselves still refuse a cycle and an upward import.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const SOURCES = ["app", "components", "lib", "proxy.ts", "instrumentation.ts", "instrumentation-client.ts"];
const EXTENSIONS = [".ts", ".tsx"];

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = path.join(ROOT, rel);
    if (statSync(abs).isDirectory()) {
      if (rel === "lib/db/generated") return;
      for (const name of readdirSync(abs)) walk(path.join(rel, name));
    } else if (EXTENSIONS.some((e) => rel.endsWith(e)) && !rel.endsWith(".d.ts")) out.push(rel);
  };
  for (const s of SOURCES) walk(s);
  return out;
}

function resolve(from: string, spec: string, known: Set<string>): string | null {
  const base = spec.startsWith("@/") ? spec.slice(2) : spec.startsWith(".") ? path.join(path.dirname(from), spec) : null;
  if (base === null) return null;
  const candidates = [base, ...EXTENSIONS.map((e) => base + e), ...EXTENSIONS.map((e) => path.join(base, `index${e}`))];
  return candidates.map((c) => path.normalize(c)).find((c) => known.has(c)) ?? null;
}

function importGraph(): Map<string, string[]> {
  const files = sourceFiles();
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), "utf8"), true, true);
    const targets = info.importedFiles.map((f) => resolve(file, f.fileName, known)).filter((t): t is string => t !== null);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components with more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

function layerOf(file: string): number {
  const i = LAYERS.findIndex((l) => l.paths.some((p) => file === p || file.startsWith(`${p}/`)));
  if (i < 0) throw new Error(`${file} is in no layer of layers.config.mjs: add its folder to the right layer.`);
  return i;
}

describe("architecture", () => {
  const graph = importGraph();

  it("has no import cycles, type-only and dynamic imports included", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("imports only downward in the layer order, apart from the named exceptions", () => {
    const upward: string[] = [];
    for (const [from, targets] of graph) {
      for (const to of targets) {
        if (layerOf(to) >= layerOf(from)) continue;
        if (ALLOWED_UPWARD.some((a) => path.matchesGlob(from, a.from) && path.matchesGlob(to, a.to))) continue;
        upward.push(`${from} → ${to}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("the lint rules refuse a deliberate cycle and an upward import", { timeout: 120_000 }, async () => {
    const eslint = new ESLint({ cwd: ROOT, ignore: false });
    const [first] = await eslint.lintFiles([path.join(ROOT, "tests/fixtures/lint-cycle/first.ts")]);
    expect(first.messages.map((m) => m.ruleId)).toContain("import/no-cycle");
    const [queue] = await eslint.lintText(
      `import { ingestJobKey } from "../ingest/documents/upload-queue";\nexport const probe = ingestJobKey;\n`,
      {
        filePath: path.join(ROOT, "lib/jobs/queue.ts"),
      },
    );
    expect(queue.messages.find((m) => m.ruleId === "import/no-restricted-paths")?.message).toMatch(
      /infrastructure may not import from ingest/,
    );
  });
});
