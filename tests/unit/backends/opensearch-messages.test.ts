import { errors } from "@opensearch-project/opensearch";
import { describe, expect, it } from "vitest";
import { documentsConfigSchema } from "@/lib/backends/documents/config";
import { registerKbSchema } from "@/lib/catalog/knowledge-bases.validation";
import { describeOpenSearchError } from "@/lib/backends/documents/opensearch/connection";
import { collectionIndexes, LAYOUT_VERSION, vectorField } from "@/lib/backends/documents/opensearch/layout";

/** Cluster answers the test node cannot give (it has no security plugin): how each is said to an admin. */
const answer = (statusCode: number, body: unknown) =>
  new errors.ResponseError({ statusCode, body, headers: {}, meta: {} as never, warnings: null });
const URL = "https://search.example.com:9200";

describe("OpenSearch failures in plain words", () => {
  it("names refused credentials and missing permissions", () => {
    expect(
      describeOpenSearchError(answer(401, { error: { type: "security_exception", reason: "missing authentication credentials" } }), URL),
    ).toBe(`OpenSearch at ${URL} refused the credentials (authentication failed): check the user and password.`);
    expect(
      describeOpenSearchError(
        answer(403, { error: { type: "security_exception", reason: "no permissions for [indices:data/read/search]" } }),
        URL,
      ),
    ).toMatch(/denied access \(the user lacks permission on the collection's indexes: no permissions for \[indices:data\/read\/search\]\)/);
  });

  it("names a missing index and a mapping the cluster rejects", () => {
    expect(
      describeOpenSearchError(
        answer(404, {
          error: { root_cause: [{ type: "index_not_found_exception", reason: "no such index [x]" }], type: "index_not_found_exception" },
        }),
        URL,
      ),
    ).toMatch(/has no index for this collection \(no such index \[x\]\): it was deleted or never built; re-index the collection/);
    expect(
      describeOpenSearchError(
        answer(400, { error: { type: "mapper_parsing_exception", reason: "failed to parse field [vector_384]" } }),
        URL,
      ),
    ).toMatch(/rejected the collection's mapping \(failed to parse field \[vector_384\]\): the index was built by another version/);
  });

  it("names a refused connection, an unknown host and a timeout", () => {
    expect(describeOpenSearchError(new errors.ConnectionError("connect ECONNREFUSED 127.0.0.1:9200"), URL)).toMatch(
      /refused the connection \(is the cluster running and the address right\?\)/,
    );
    expect(describeOpenSearchError(new errors.ConnectionError("getaddrinfo ENOTFOUND search.example.com"), URL)).toMatch(
      /could not be found \(the host name does not resolve\)/,
    );
    expect(describeOpenSearchError(new errors.TimeoutError("Request timed out", answer(0, null).meta), URL)).toBe(
      `OpenSearch at ${URL} did not answer in time.`,
    );
  });
});

describe("collection index layout", () => {
  it("versions the index names and reads them through aliases without the version", () => {
    expect(collectionIndexes({ indexPrefix: "acme" }, "CMabc123")).toEqual({
      unitsAlias: "acme-kb-cmabc123-units",
      contentAlias: "acme-kb-cmabc123-content",
      unitsIndex: `acme-kb-cmabc123-units-v${LAYOUT_VERSION}`,
      contentIndex: `acme-kb-cmabc123-content-v${LAYOUT_VERSION}`,
    });
    expect(() => collectionIndexes({ indexPrefix: "acme" }, "../etc")).toThrow(/Invalid knowledge base id/);
    expect(vectorField(384)).toBe("vector_384");
  });

  it("validates the engine settings a collection stores", () => {
    expect(documentsConfigSchema.parse({})).toMatchObject({ engine: "sqlite" });
    expect(documentsConfigSchema.parse({ engine: "opensearch", opensearch: { url: URL } }).opensearch).toEqual({
      url: URL,
      indexPrefix: "mosaic",
      shards: 1,
      replicas: 1,
    });
    expect(documentsConfigSchema.safeParse({ engine: "opensearch", opensearch: { url: "ftp://x" } }).success).toBe(false);
    expect(documentsConfigSchema.safeParse({ engine: "opensearch", opensearch: { indexPrefix: "Has Spaces" } }).success).toBe(false);
    expect(documentsConfigSchema.safeParse({ engine: "elastic" }).success).toBe(false);
    // A password in the address would be stored in plain text: refused, with where to put it instead.
    const withPassword = documentsConfigSchema.safeParse({
      engine: "opensearch",
      opensearch: { url: "https://admin:secret@search.example.com" },
    });
    expect(withPassword.success).toBe(false);
    expect(withPassword.error?.issues[0]?.message).toMatch(/use the user and password fields/);
    expect(
      registerKbSchema.safeParse({ kind: "DOCUMENTS", name: "x", connection: { engine: "opensearch", searchUrl: "http://u:p@h:9200" } })
        .success,
    ).toBe(false);
  });
});
