import type { z } from "zod";
import { GUIDE_ACTION_KINDS, type GuideActionKind, guideActionParamsSchema } from "../pipeline/guide-actions";

/**
 * Field-level messages for a retrieval action's parameters, in the words of the form that edits them.
 * The parameters are checked with the same schema the pipeline stores and runs them with; this only
 * turns its findings into "Choose a table." next to the table field instead of one line of schema text.
 */
interface FieldMessages {
  /** Empty or absent. */
  missing: string;
  /** More than the schema allows. */
  tooMany?: string;
  /** Present but not usable (a negative row number, a wrong type). */
  invalid?: string;
}

const FIELDS: Record<GuideActionKind, Record<string, FieldMessages>> = {
  NATIVE_QUERY: {
    "query.text": { missing: "Write the query.", tooMany: "Shorten the query: at most 100,000 characters." },
  },
  SELECT_COORDINATES: {
    tableKey: { missing: "Choose a table." },
    rows: { missing: "Tick at least one row.", tooMany: "Tick at most 500 rows.", invalid: "Tick the rows again in the table shown." },
    columns: {
      missing: "Tick at least one column.",
      tooMany: "Tick at most 100 columns.",
      invalid: "Tick the columns again in the table shown.",
    },
  },
  SELECT_SENTENCE_IDXS: {
    documentId: { missing: "Choose a document." },
    sentenceIdxs: {
      missing: "Tick at least one sentence.",
      tooMany: "Tick at most 200 sentences.",
      invalid: "Tick the sentences again in the document shown.",
    },
  },
  NEIGHBORHOOD: {
    entities: { missing: "Enter at least one entity, one per line.", tooMany: "Enter at most 10 entities." },
    hops: { missing: "Choose 1 or 2 hops.", invalid: "Choose 1 or 2 hops." },
  },
};

const OTHER = "This part of the action is not valid: set it again.";

/** Which form field a schema issue is about: the longest known field its path starts with. */
function fieldOf(kind: GuideActionKind, path: readonly PropertyKey[]): string {
  const parts = path.map(String);
  for (let n = parts.length; n > 0; n--) {
    const key = parts.slice(0, n).join(".");
    if (FIELDS[kind][key]) return key;
  }
  return parts[0] ?? "params";
}

function messageFor(kind: GuideActionKind, field: string, issue: z.core.$ZodIssue, fieldPath: number): string {
  const m = FIELDS[kind][field];
  if (!m) return OTHER;
  // An issue about an element (rows.3) rather than the field itself is a bad value, not a missing one.
  if (issue.path.length > fieldPath) return m.invalid ?? m.missing;
  if (issue.code === "too_big") return m.tooMany ?? m.invalid ?? m.missing;
  if (issue.code === "too_small" || issue.code === "invalid_type") return m.missing;
  return m.invalid ?? m.missing;
}

/** Problems with one action's parameters, by field ("query.text", "tableKey", "rows"…); empty when it can run. */
export function actionFieldProblems(kind: GuideActionKind, params: unknown): Record<string, string> {
  const parsed = guideActionParamsSchema[kind].safeParse(params ?? {});
  if (parsed.success) return {};
  const problems: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const field = fieldOf(kind, issue.path);
    problems[field] ??= messageFor(kind, field, issue, field.split(".").length);
  }
  // A document collection's "query" is the words to search for.
  if (
    problems["query.text"] === FIELDS.NATIVE_QUERY["query.text"].missing &&
    (params as { query?: { language?: unknown } } | null)?.query?.language === "search"
  ) {
    problems["query.text"] = "Enter the words to search for.";
  }
  return problems;
}

const isKind = (k: unknown): k is GuideActionKind => typeof k === "string" && (GUIDE_ACTION_KINDS as readonly string[]).includes(k);

/**
 * Field messages for every incomplete action of a guide draft, keyed as the editor addresses them
 * ("sources.0.actions.1.tableKey"). Anything that is not shaped like a draft is left to the guide's own
 * validation, which names it.
 */
export function draftActionProblems(draft: unknown): Record<string, string> {
  const problems: Record<string, string> = {};
  const sources = (draft as { sources?: unknown } | null)?.sources;
  if (!Array.isArray(sources)) return problems;
  sources.forEach((source, i) => {
    const actions = (source as { actions?: unknown } | null)?.actions;
    if (!Array.isArray(actions)) return;
    actions.forEach((action, j) => {
      const { kind, params } = (action ?? {}) as { kind?: unknown; params?: unknown };
      if (!isKind(kind)) return;
      for (const [field, message] of Object.entries(actionFieldProblems(kind, params)))
        problems[`sources.${i}.actions.${j}.${field}`] = message;
    });
  });
  return problems;
}

export const INCOMPLETE_ACTIONS = "Some retrieval actions are incomplete: see the messages next to them.";
