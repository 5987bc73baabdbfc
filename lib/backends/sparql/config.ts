import { z } from "zod";
import { isSafeIri } from "./rdf-terms";

/**
 * An RDF knowledge base is either the embedded Oxigraph store (data uploaded as Turtle, N-Triples or
 * RDF/XML and kept under the KB's storage directory) or any SPARQL 1.1 endpoint reached over HTTP.
 */
export const sparqlConfigSchema = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("embedded") }).strict(),
  z
    .object({
      mode: z.literal("remote"),
      endpoint: z.url({ protocol: /^https?$/, message: "Give the endpoint's http:// or https:// URL, e.g. http://localhost:8890/sparql." }),
      /** Sent as default-graph-uri: the graph queries read when they name none (Virtuoso reads all graphs otherwise). */
      defaultGraph: z.string().refine(isSafeIri, "The default graph must be an IRI such as http://example.org/graph.").optional(),
      /** HTTP basic-auth user; the password is a secret. */
      user: z.string().min(1).max(200).optional(),
    })
    .strict(),
]);
export type SparqlConfig = z.infer<typeof sparqlConfigSchema>;

export const sparqlSecretsSchema = z.object({ password: z.string().max(1000).optional() });
export type SparqlSecrets = z.infer<typeof sparqlSecretsSchema>;
