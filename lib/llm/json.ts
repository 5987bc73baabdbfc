import { z } from "zod";

/**
 * The JSON a completion carries. Structured outputs give bare JSON; JSON mode and prompted JSON may
 * wrap it in a ```json fence or a sentence, and some local models put their reasoning in
 * <think>…</think> first. Returns the first complete top-level object, or null.
 */
export function extractJsonObject(text: string): unknown {
  const cleaned = text.replace(/<think>[\s\S]*?<\/think>/gi, "").trim();
  try {
    return JSON.parse(cleaned);
  } catch {
    // fall through to scanning
  }
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(cleaned);
  if (fenced) {
    try {
      return JSON.parse(fenced[1]);
    } catch {
      // fall through
    }
  }
  const start = cleaned.indexOf("{");
  if (start < 0) return null;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = start; i < cleaned.length; i++) {
    const c = cleaned[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) {
      try {
        return JSON.parse(cleaned.slice(start, i + 1));
      } catch {
        return null;
      }
    }
  }
  return null;
}

/**
 * JSON Schema for a zod schema, as response_format json_schema wants it: no $schema key, every object
 * closed and every property required (optional values are nullable), which is what OpenAI's strict
 * mode accepts and what vLLM/llama.cpp grammars compile.
 */
export function jsonSchemaFor(schema: z.ZodType): Record<string, unknown> {
  // io "output" (the default) closes objects (additionalProperties: false), as strict mode requires.
  const json = z.toJSONSchema(schema, { target: "draft-7", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/** The first problems of a failed validation, in one line for the trace. */
export function describeIssues(error: z.ZodError, max = 3): string {
  return error.issues
    .slice(0, max)
    .map((i) => `${i.path.length ? i.path.join(".") : "output"}: ${i.message}`)
    .join("; ");
}
