import { z } from "zod";

/** Text segmentation needs a locale the runtime's ICU data knows; an unknown one would silently fall back. */
function isSegmenterLocale(language: string): boolean {
  try {
    return Intl.Segmenter.supportedLocalesOf([language]).length > 0;
  } catch {
    return false;
  }
}

/**
 * Where a collection's index lives: one SQLite file in the KB's storage directory (the embedded
 * default), or an OpenSearch cluster (the scale path: several app instances share it).
 */
export const DOCUMENT_ENGINES = ["sqlite", "opensearch"] as const;
export type DocumentEngine = (typeof DOCUMENT_ENGINES)[number];

export const openSearchSettingsSchema = z
  .object({
    /** The cluster's HTTP(S) address; unset = the server's SEARCH_URL. */
    url: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://search.example.com:9200" })
      // Credentials in the address would be stored and shown in plain text; the password has its own, encrypted field.
      .refine((u) => !/^https?:\/\/[^/]*@/.test(u), "must not contain a user or password (use the user and password fields)")
      .optional(),
    /** Basic-authentication user; the password is a secret (encrypted at rest). */
    username: z.string().trim().min(1).max(200).optional(),
    /** Index names start with it, so several workspaces can share one cluster. */
    indexPrefix: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, "must be lowercase letters, digits, - or _ (at most 40), starting with a letter or digit")
      .default("mosaic"),
    shards: z.number().int().min(1).max(64).default(1),
    replicas: z.number().int().min(0).max(8).default(1),
  })
  .strict();
export type OpenSearchSettings = z.infer<typeof openSearchSettingsSchema>;

export const documentsConfigSchema = z
  .object({
    /** BCP 47 language of the documents: drives sentence segmentation and stopwords. */
    language: z
      .string()
      .min(2)
      .max(35)
      .default("en")
      .refine(isSegmenterLocale, { message: 'is not a language this server can split into sentences (try "en")' }),
    /** Passages are at most this long, except a single sentence longer than that (sentences are never cut). */
    chunkMaxChars: z.number().int().min(200).max(4_000).default(700),
    engine: z.enum(DOCUMENT_ENGINES).default("sqlite"),
    /** Only read when `engine` is "opensearch"; defaults apply when absent. */
    opensearch: openSearchSettingsSchema.optional(),
  })
  .strict();
export type DocumentsConfig = z.infer<typeof documentsConfigSchema>;

/** A SQLite collection keeps nothing secret; an OpenSearch one may need the cluster user's password. */
export const documentsSecretsSchema = z.object({ password: z.string().optional() });
export type DocumentsSecrets = z.infer<typeof documentsSecretsSchema>;

export const DEFAULT_DOCUMENTS_CONFIG: DocumentsConfig = documentsConfigSchema.parse({});
