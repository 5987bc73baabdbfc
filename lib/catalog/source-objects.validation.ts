import { z } from "zod";

const tags = z
  .array(
    z
      .string()
      .trim()
      .toLowerCase()
      .min(1)
      .max(40)
      .regex(/^[\p{L}\p{N} _.:-]+$/u, "Tags may use letters, digits, spaces and _ . : -"),
  )
  .max(30, "At most 30 tags.")
  .transform((t) => [...new Set(t)]);

export const updateSourceObjectSchema = z.object({
  id: z.string().min(1),
  name: z.string().trim().min(1, "Enter a name.").max(120),
  description: z.string().trim().max(4000, "Keep the description under 4,000 characters."),
  tags,
});

export const createDynamicSourceObjectSchema = z.object({
  kbId: z.string().min(1, "Choose a knowledge base."),
  name: z.string().trim().min(1, "Enter a name.").max(120),
  description: z.string().trim().max(4000).default(""),
  tags: tags.default([]),
  /** The saved native query: SQL, SPARQL, Cypher, or search text for documents. */
  query: z.string().trim().min(1, "Enter the query to save.").max(20_000),
});

export const listSourceObjectsSchema = z.object({
  kbId: z.string().optional(),
  contentType: z.enum(["TEXT", "TABLE", "GRAPH"]).optional(),
  mode: z.enum(["STATIC", "DYNAMIC"]).optional(),
  tag: z.string().optional(),
  q: z.string().max(200).optional(),
});
