import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ENV_VARIABLES } from "@/lib/env";

/**
 * deploy/compose.example.yaml is documentation that must stay true: every variable it gives Mosaic's
 * app instances is one the app reads (lib/env.ts), every variable it gives the inference service is one
 * `npm run worker:inference` reads, and the app instances get each address the scale topology needs.
 */
const text = readFileSync("deploy/compose.example.yaml", "utf8");
const lines = text.split("\n");

/** The variable names of the indented block right under the line `at` (`KEY: value` lines). */
function variablesUnder(at: number): string[] {
  const indent = /^\s*/.exec(lines[at]!)![0].length;
  const names: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.trim() || line.trim().startsWith("#")) continue;
    if (/^\s*/.exec(line)![0].length <= indent) break;
    const m = /^\s+([A-Z][A-Z0-9_]*):/.exec(line);
    if (m) names.push(m[1]!);
  }
  return names;
}

/** A service's `environment:` block (first one after `  <name>:`). */
function serviceEnvironment(name: string): string[] {
  const service = lines.findIndex((l) => l === `  ${name}:`);
  expect(service, `service ${name}`).toBeGreaterThanOrEqual(0);
  const env = lines.findIndex((l, i) => i > service && l === "    environment:");
  expect(env).toBeGreaterThan(service);
  return variablesUnder(env);
}

describe("the Compose example of the scale topology", () => {
  const app = variablesUnder(lines.findIndex((l) => l === "x-app-env: &app-env"));
  const inference = serviceEnvironment("inference");

  it("gives the app instances only variables the app reads, and every address the topology needs", () => {
    expect(app.filter((v) => !ENV_VARIABLES.includes(v))).toEqual([]);
    for (const v of ["DATABASE_URL", "SEARCH_URL", "INFERENCE_URL", "DATA_DIR", "MODELS_DIR", "NEXTAUTH_SECRET", "MOSAIC_ENCRYPTION_KEY"])
      expect(app).toContain(v);
  });

  it("gives the inference service only variables it reads", () => {
    const worker = readFileSync("scripts/worker-inference.ts", "utf8");
    expect(inference.length).toBeGreaterThan(0);
    for (const v of inference) expect(ENV_VARIABLES.includes(v) || new RegExp(`\\b${v}:`).test(worker), v).toBe(true);
  });

  it("runs the app and the inference service with the project's own commands", () => {
    const scripts = Object.keys((JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts);
    for (const m of text.matchAll(/command: npm (?:run )?([\w:-]+)/g)) expect(scripts).toContain(m[1]);
  });
});
