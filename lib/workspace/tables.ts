import type { PrismaClient } from "../db/generated/client";

/**
 * The application database's tables as a workspace export carries them, in an order where every row's
 * references come before it (an import inserts them in this order). Tables left out say why. Every
 * model of the schema is listed (a unit test checks it), so a new table cannot be forgotten silently.
 */
export interface TableSpec {
  /** The Prisma model. */
  model: string;
  /** Its delegate on the client (`prisma.user`). */
  delegate: keyof PrismaClient & string;
  /** Json fields that may be NULL (Prisma writes those as DbNull, not JSON null). */
  nullableJson?: string[];
  /** Why the table is not carried; absent = carried. */
  skip?: string;
}

export const WORKSPACE_TABLES: TableSpec[] = [
  { model: "User", delegate: "user" },
  { model: "Group", delegate: "group" },
  { model: "GroupMembership", delegate: "groupMembership" },
  { model: "ApiKey", delegate: "apiKey" },
  { model: "KnowledgeBase", delegate: "knowledgeBase" },
  { model: "KbGroupAccess", delegate: "kbGroupAccess" },
  { model: "EntityLabel", delegate: "entityLabel" },
  { model: "SourceObject", delegate: "sourceObject", nullableJson: ["snapshot"] },
  { model: "Conversation", delegate: "conversation" },
  // A chat client keeps continuing its conversations on the new deployment.
  { model: "ChatThread", delegate: "chatThread" },
  { model: "Run", delegate: "run", nullableJson: ["intent", "result"] },
  { model: "TraceEvent", delegate: "traceEvent" },
  { model: "ExtractionGuide", delegate: "extractionGuide" },
  { model: "GuideSource", delegate: "guideSource" },
  { model: "GuideAction", delegate: "guideAction" },
  { model: "RunGuideUse", delegate: "runGuideUse" },
  { model: "Feedback", delegate: "feedback" },
  { model: "Setting", delegate: "setting" },
  { model: "EvalSuite", delegate: "evalSuite" },
  { model: "EvalQuestion", delegate: "evalQuestion" },
  { model: "EvalReport", delegate: "evalReport", nullableJson: ["metrics"] },
  { model: "EvalResult", delegate: "evalResult" },
  { model: "TextEmbedding", delegate: "textEmbedding" },
  { model: "PendingUpload", delegate: "pendingUpload" },
  // The history an auditor asks for moves with the workspace (no references: users and KBs are named by id and email).
  { model: "AuditEvent", delegate: "auditEvent", nullableJson: ["before", "after", "detail"] },
  {
    model: "Job",
    delegate: "job",
    skip: "Work in progress, not content: the import asks again for what the new deployment must do (embedding, queued documents).",
  },
  { model: "SignInThrottle", delegate: "signInThrottle", skip: "Failed sign-in counters of the old deployment's clients." },
  { model: "RunSlot", delegate: "runSlot", skip: "Leases of runs in flight on the old deployment; they expire on their own." },
];

export const CARRIED_TABLES = WORKSPACE_TABLES.filter((t) => !t.skip);
