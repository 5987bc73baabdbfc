import { z } from "zod";

/** Text segmentation needs a locale the runtime's ICU data knows; an unknown one would silently fall back. */
function isSegmenterLocale(language: string): boolean {
  try {
    return Intl.Segmenter.supportedLocalesOf([language]).length > 0;
  } catch {
    return false;
  }
}

export const documentsConfigSchema = z
  .object({
    /** BCP 47 language of the documents: drives sentence segmentation and stopwords. */
    language: z
      .string()
      .min(2)
      .max(35)
      .default("en")
      .refine(isSegmenterLocale, { message: "is not a language this server can split into sentences (try \"en\")" }),
    /** Passages are at most this long, except a single sentence longer than that (sentences are never cut). */
    chunkMaxChars: z.number().int().min(200).max(4_000).default(700),
  })
  .strict();
export type DocumentsConfig = z.infer<typeof documentsConfigSchema>;

/** A document collection lives in the KB's own storage directory: nothing secret to keep. */
export const documentsSecretsSchema = z.object({});
export type DocumentsSecrets = z.infer<typeof documentsSecretsSchema>;

export const DEFAULT_DOCUMENTS_CONFIG: DocumentsConfig = documentsConfigSchema.parse({});
