import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CatalogDeps } from "../deps";
import { registerKnowledgeBase } from "../ingest/register";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { tableNotesSchema, type TableNotes } from "../catalog/table-notes";
import { createDemoSalesDatabase } from "./sales-database";

const CONTENT_DIR = path.join(process.cwd(), "lib", "demo", "content");
const MARKER = "demo.catalog";

function content(name: string) {
  return { name, bytes: readFileSync(/* turbopackIgnore: true */ path.join(CONTENT_DIR, name)) };
}

export const DEMO_KB_NAMES = {
  documents: "Aurora policies and reports",
  sql: "Aurora sales database",
  sparql: "Aurora product and organisation graph",
} as const;

/**
 * The demo workspace of a fictional outdoor-gear company, Aurora Outfitters: policy and report
 * documents (one with a table), a SQLite sales database and an RDF product/organisation graph, so a
 * fresh clone has every kind that runs without services. Seeded once: deleting the demo KBs later
 * does not bring them back.
 */
export async function seedDemoCatalogOnce(prisma: PrismaClient, deps: CatalogDeps): Promise<{ seeded: boolean; kbs: number }> {
  if (await prisma.setting.findUnique({ where: { key: MARKER } })) return { seeded: false, kbs: 0 };
  const admin = await prisma.user.findFirst({ where: { role: "ADMIN" }, orderBy: { createdAt: "asc" }, select: { id: true } });
  const owner = admin?.id ?? null;
  const existing = new Set((await prisma.knowledgeBase.findMany({ select: { name: true } })).map((k) => k.name));

  if (!existing.has(DEMO_KB_NAMES.documents)) {
    await registerKnowledgeBase(
      prisma,
      deps,
      owner,
      {
        kind: "DOCUMENTS",
        name: DEMO_KB_NAMES.documents,
        description: "Company policies (travel and expenses, returns and warranty) and the 2025 annual report with results by region.",
        connection: { language: "en" },
        // The demo workspace is for every demo account: opened explicitly (new KBs are admins-only).
        openToEveryone: true,
      },
      [
        content("travel-and-expense-policy.md"),
        content("annual-report-2025.md"),
        { ...content("returns-policy.html"), mediaType: "text/html" },
      ],
      { origin: "demo" },
    );
  }
  if (!existing.has(DEMO_KB_NAMES.sql)) {
    const dir = mkdtempSync(path.join(tmpdir(), "mosaic-demo-"));
    try {
      const file = path.join(dir, "sales.sqlite");
      createDemoSalesDatabase(file);
      const registered = await registerKnowledgeBase(
        prisma,
        deps,
        owner,
        {
          kind: "SQL",
          name: DEMO_KB_NAMES.sql,
          description:
            "Orders, order lines, products, customers and sales regions of Aurora Outfitters for 2024 and 2025. Prices are in euros.",
          connection: { dialect: "sqlite" },
          openToEveryone: true,
        },
        [],
        { origin: "demo", sqliteSourcePath: file },
      );
      await noteDemoMeasures(prisma, registered.id);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (!existing.has(DEMO_KB_NAMES.sparql)) {
    await registerKnowledgeBase(
      prisma,
      deps,
      owner,
      {
        kind: "SPARQL",
        name: DEMO_KB_NAMES.sparql,
        description:
          "Products with their categories, materials and manufacturers; the company's subsidiaries, suppliers, locations and executives.",
        connection: { mode: "embedded" },
        openToEveryone: true,
      },
      [content("products.ttl")],
      { origin: "demo" },
    );
  }
  await prisma.setting.create({ data: { key: MARKER, value: { seededAt: new Date().toISOString() } } });
  return { seeded: true, kbs: 3 };
}

/**
 * What the demo company's analyst wrote on the order lines (table-notes.ts), as any analyst would for
 * their own sales tables: units sold is a measure no column holds. Seeded through the same schema as the
 * Source objects page. No column meanings: "How many units of the product the order line holds" on
 * quantity drew "the average order value" from the unit price to the quantity (both wrong: an order's
 * value is its lines summed). No "revenue" measure: the
 * annual report states the company's revenue, and the order lines here are a sample of it, so a revenue
 * summed from them would contradict the report (docs/EVALUATION.md, "Analysts' notes").
 */
async function noteDemoMeasures(prisma: PrismaClient, kbId: string): Promise<void> {
  const notes: TableNotes = tableNotesSchema.parse({
    measures: [{ name: "units sold", expression: "quantity", aggregate: "sum", description: "Number of units sold.", synonyms: [] }],
  });
  await prisma.sourceObject.update({
    where: { kbId_key: { kbId, key: "order_items" } },
    data: { annotations: notes as unknown as Prisma.InputJsonValue },
  });
}
