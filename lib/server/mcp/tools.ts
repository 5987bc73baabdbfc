import "server-only";
import { z } from "zod";
import type { AuditActor } from "../../audit/audit";
import { auditAsk, auditEvidenceOpened } from "../../audit/runs";
import type { ApiScope } from "../../auth/api-keys.validation";
import type { CurrentUser } from "../../auth/session";
import { listKnowledgeBases } from "../../catalog/knowledge-bases";
import type { PrismaClient } from "../../db/generated/client";
import { catalogDeps } from "../../deps";
import { loadEnv } from "../../env";
import { askSchema } from "../../pipeline/run.validation";
import { askResult } from "../../runs/ask-stream";
import { loadRunView } from "../../runs/load-run";
import { runPipeline } from "../../runs/run-pipeline";
import { holdRunSlot } from "../../runs/run-slots";
import { maxConcurrentRuns } from "../../settings/fair-use";
import { answerWithCitations } from "../api-v1/chat";
import { kbApiView, runEvidenceApiView } from "../api-v1/views";

/**
 * The MCP server's tools (issue 29, part 3): each one a thin call of the same domain function the
 * matching /api/v1 route calls, as the key's user, so the access rules are the ones the pages and the
 * REST API apply (in the query). Each tool names the API-key scope it needs; the transport (server.ts)
 * lists only the tools the key may use and refuses the others by name.
 */

/** Who a tool call acts as: the key's user, the key's principal (run slots) and the audit actor. */
export interface McpCaller {
  user: CurrentUser;
  principal: string;
  scopes: readonly ApiScope[];
  actor: AuditActor;
  signal: AbortSignal;
}

export interface ToolResult {
  /** What a model reads: plain text. */
  text: string;
  /** The same, as data, for clients that read `structuredContent`. */
  structured: Record<string, unknown>;
}

export interface McpTool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  scope: ApiScope;
  input: S;
  output?: z.ZodObject;
  run: (prisma: PrismaClient, caller: McpCaller, args: z.infer<S>) => Promise<ToolResult>;
}

const kbIdsField = askSchema.shape.kbIds.describe(
  "Optional: ask only these knowledge bases (ids from list_knowledge_bases). Omitted: every knowledge base you may use.",
);

const askInput = z.object({
  question: askSchema.shape.question.describe("The question, in plain language."),
  kbIds: kbIdsField,
  conversationId: askSchema.shape.conversationId.describe("Optional: continue the conversation of an earlier answer (its conversationId)."),
});

const searchInput = z.object({
  kbId: z.string().min(1, "Name the knowledge base (an id from list_knowledge_bases).").max(64).describe("The knowledge base to search."),
  query: askSchema.shape.question.describe("What to look for, in plain language."),
  limit: z.number().int().min(1).max(50).default(10).describe("How many evidence items to return (1-50, default 10)."),
});

const citationSchema = z.object({
  n: z.number().int(),
  evidenceId: z.string(),
  kb: z.string(),
  sourceObject: z.string().nullable(),
  text: z.string(),
});

const askOutput = z.object({
  answer: z.string().nullable(),
  refrained: z.boolean(),
  reason: z.string().nullable(),
  status: z.string(),
  confidence: z.number(),
  citations: z.array(citationSchema),
  runId: z.string().nullable(),
  conversationId: z.string().nullable(),
});

/** Runs the pipeline as the caller, inside one of the caller's fair-use run slots, audited as an ask. */
async function runAsk(prisma: PrismaClient, caller: McpCaller, question: string, kbIds?: string[], conversationId?: string | null) {
  const slot = await holdRunSlot(prisma, caller.principal, await maxConcurrentRuns(prisma, loadEnv()));
  try {
    const outcome = await runPipeline(prisma, catalogDeps(), {
      question,
      user: caller.user,
      conversationId: conversationId ?? null,
      kbIds,
      signal: caller.signal,
    });
    auditAsk(caller.actor, question, outcome);
    return askResult(outcome);
  } finally {
    await slot.release();
  }
}

type Evidence = ReturnType<typeof askResult>["evidence"][number];

function cited(result: ReturnType<typeof askResult>): z.infer<typeof citationSchema>[] {
  const byId = new Map(result.evidence.map((e) => [e.id, e]));
  return result.citations
    .map((id) => byId.get(id))
    .filter((e): e is Evidence => !!e)
    .map((e, i) => ({ n: i + 1, evidenceId: e.id, kb: e.kb, sourceObject: e.sourceObject ?? null, text: e.text }));
}

function evidenceLines(evidence: readonly { kb: string; sourceObject?: string | null; text: string }[]): string {
  return evidence
    .map((e, i) => {
      const quote = e.text.replace(/\s+/g, " ").trim();
      return `[${i + 1}] ${e.kb}${e.sourceObject ? ` · ${e.sourceObject}` : ""}: ${quote.length > 300 ? `${quote.slice(0, 300)}…` : quote}`;
    })
    .join("\n");
}

export const askTool: McpTool<typeof askInput> = {
  name: "ask",
  title: "Ask Mosaic",
  description:
    "Answer a question from the knowledge bases you may use. Returns the answer with numbered citations ([1], [2], …) and the sources they point to; Mosaic says so when the evidence does not answer it.",
  scope: "ask",
  input: askInput,
  output: askOutput,
  async run(prisma, caller, args) {
    const result = await runAsk(prisma, caller, args.question, args.kbIds, args.conversationId);
    return {
      text: answerWithCitations(result),
      structured: {
        answer: result.answer,
        refrained: result.refrained,
        reason: result.reason ?? null,
        status: result.status,
        confidence: result.confidence,
        citations: cited(result),
        runId: result.runId ?? null,
        conversationId: result.conversationId ?? null,
      },
    };
  },
};

export const searchKnowledgeBaseTool: McpTool<typeof searchInput> = {
  name: "search_knowledge_base",
  title: "Search one knowledge base",
  description:
    "Find the evidence one knowledge base holds for a query (Mosaic plans and runs the queries, as for a question, restricted to that knowledge base) and return the ranked evidence rather than an answer.",
  scope: "ask",
  input: searchInput,
  async run(prisma, caller, args) {
    const result = await runAsk(prisma, caller, args.query, [args.kbId]);
    const evidence = result.evidence.slice(0, args.limit).map((e) => ({
      id: e.id,
      kind: e.kind,
      kb: e.kb,
      sourceObject: e.sourceObject ?? null,
      text: e.text,
      score: e.score,
    }));
    return {
      text: evidence.length ? evidenceLines(evidence) : `No evidence found in this knowledge base for "${args.query}".`,
      structured: { kbId: args.kbId, runId: result.runId ?? null, evidence },
    };
  },
};

export const listKnowledgeBasesTool: McpTool = {
  name: "list_knowledge_bases",
  title: "List knowledge bases",
  description: "The knowledge bases you may use: id, name, kind, description and health.",
  scope: "kbs:read",
  input: z.object({}),
  async run(prisma, caller) {
    const kbs = (await listKnowledgeBases(prisma, caller.user)).map((kb) => kbApiView(kb, caller.user));
    return {
      text: kbs.length
        ? kbs
            .map((kb) => `${kb.id} · ${kb.name} (${kb.kind}, ${kb.health.status})${kb.description ? `: ${kb.description}` : ""}`)
            .join("\n")
        : "No knowledge base is shared with you yet.",
      structured: { knowledgeBases: kbs },
    };
  },
};

const runEvidenceInput = z.object({
  runId: z.string().min(1, "Name the run (the runId an answer gave).").max(64).describe("The run's id."),
});

/** A run's evidence as the caller may see it (loadRunView: own runs, or as the run-access rule allows; cut to usable KBs). */
export async function runEvidence(prisma: PrismaClient, caller: Pick<McpCaller, "user" | "actor">, runId: string) {
  const view = runEvidenceApiView(await loadRunView(prisma, caller.user, runId));
  if (!view.hidden?.wholeResult) auditEvidenceOpened(caller.actor, runId, prisma);
  return view;
}

export function runEvidenceText(view: Awaited<ReturnType<typeof runEvidence>>): string {
  if (view.hidden?.wholeResult) return "This run read a knowledge base you may no longer use, so its evidence is withheld.";
  if (!view.evidence.length) return "This run has no evidence.";
  const cites = view.citations.map((id) => view.evidence.findIndex((e) => e.id === id) + 1).filter((n) => n > 0);
  return `${evidenceLines(view.evidence)}${cites.length ? `\n\nCited by the answer: ${cites.map((n) => `[${n}]`).join(", ")}` : ""}`;
}

export const getRunEvidenceTool: McpTool<typeof runEvidenceInput> = {
  name: "get_run_evidence",
  title: "A run's evidence",
  description: "The evidence and citations of an earlier answer (its runId), as you may see them now.",
  scope: "runs:read",
  input: runEvidenceInput,
  async run(prisma, caller, args) {
    const view = await runEvidence(prisma, caller, args.runId);
    return { text: runEvidenceText(view), structured: view as unknown as Record<string, unknown> };
  },
};

export const MCP_TOOLS: readonly McpTool[] = [
  askTool as unknown as McpTool,
  searchKnowledgeBaseTool as unknown as McpTool,
  listKnowledgeBasesTool,
  getRunEvidenceTool as unknown as McpTool,
];

/** The scopes any MCP tool or resource needs: a key with none of them has nothing to do here. */
export const MCP_SCOPES: readonly ApiScope[] = [...new Set(MCP_TOOLS.map((t) => t.scope))];
