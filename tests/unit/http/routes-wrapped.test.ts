import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Every route handler under app/api goes through lib/http/route.ts (withAuthRoute or withPublicRoute),
 * which applies the same-origin rule and the body bounds (issue 31). A new route that exports a bare
 * function fails here, naming the file and the method.
 */

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
// apiRoute (lib/server/api-v1/route.ts) is withAuthRoute with a required API-key scope and problem details.
const WRAPPERS = new Set(["withAuthRoute", "withPublicRoute", "apiRoute"]);

function routeFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    const p = path.join(dir, entry);
    if (statSync(p).isDirectory()) routeFiles(p, out);
    else if (/^route\.(ts|tsx|js|mjs)$/.test(entry)) out.push(p);
  }
  return out;
}

function isWrapperCall(node: ts.Expression | undefined): boolean {
  return !!node && ts.isCallExpression(node) && ts.isIdentifier(node.expression) && WRAPPERS.has(node.expression.text);
}

/** Exported HTTP methods of one route file and whether each is a wrapper's function. */
function exportedHandlers(file: string): { method: string; wrapped: boolean }[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const locals = new Map<string, ts.Expression | undefined>();
  const found: { method: string; wrapped: boolean }[] = [];
  const exported = (n: ts.Node) => ts.canHaveModifiers(n) && !!ts.getModifiers(n)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const stmt of source.statements) {
    if (ts.isVariableStatement(stmt)) {
      for (const d of stmt.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) continue;
        locals.set(d.name.text, d.initializer);
        if (exported(stmt) && METHODS.has(d.name.text)) found.push({ method: d.name.text, wrapped: isWrapperCall(d.initializer) });
      }
    } else if (ts.isFunctionDeclaration(stmt) && stmt.name && METHODS.has(stmt.name.text) && exported(stmt)) {
      found.push({ method: stmt.name.text, wrapped: false });
    }
  }
  for (const stmt of source.statements) {
    if (!ts.isExportDeclaration(stmt) || !stmt.exportClause || !ts.isNamedExports(stmt.exportClause)) continue;
    if (stmt.moduleSpecifier) {
      // Re-exported from another module: cannot be checked here, so it is refused.
      for (const el of stmt.exportClause.elements) if (METHODS.has(el.name.text)) found.push({ method: el.name.text, wrapped: false });
      continue;
    }
    for (const el of stmt.exportClause.elements) {
      if (!METHODS.has(el.name.text)) continue;
      const local = (el.propertyName ?? el.name).text;
      found.push({ method: el.name.text, wrapped: isWrapperCall(locals.get(local)) });
    }
  }
  return found;
}

describe("route handlers", () => {
  const files = routeFiles("app/api");

  it("finds the routes", () => {
    expect(files.length).toBeGreaterThan(10);
    expect(files).toContain(path.join("app", "api", "admin", "users", "route.ts"));
  });

  it("all go through lib/http/route.ts", () => {
    const offenders = files.flatMap((f) =>
      exportedHandlers(f)
        .filter((h) => !h.wrapped)
        .map((h) => `${f}: ${h.method}`),
    );
    expect(offenders).toEqual([]);
    for (const f of files) expect(exportedHandlers(f).length, `${f} exports no handler`).toBeGreaterThan(0);
  });

  it("apiRoute is withAuthRoute's", async () => {
    const { apiRoute } = await import("@/lib/server/api-v1/route");
    const { GUARDED_ROUTE } = await import("@/lib/http/route");
    expect((apiRoute({ name: "t", scope: "ask" }, async () => ({})) as unknown as Record<symbol, unknown>)[GUARDED_ROUTE]).toBe(true);
  });

  it("tells a bare handler from a wrapped one", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(path.join(tmpdir(), "routes-"));
    const file = path.join(dir, "route.ts");
    writeFileSync(
      file,
      [
        "export async function GET() { return new Response('x'); }",
        "export const POST = withAuthRoute({ name: 'x' }, async () => ({}));",
        "const handler = (req: Request) => new Response('y');",
        "const guarded = withPublicRoute({ name: 'y' }, async () => new Response('z'));",
        "export { handler as PUT, guarded as DELETE };",
        "export { PATCH } from './elsewhere';",
      ].join("\n"),
    );
    const sorted = exportedHandlers(file).sort((a, b) => a.method.localeCompare(b.method));
    expect(sorted).toEqual([
      { method: "DELETE", wrapped: true },
      { method: "GET", wrapped: false },
      { method: "PATCH", wrapped: false },
      { method: "POST", wrapped: true },
      { method: "PUT", wrapped: false },
    ]);
  });
});
