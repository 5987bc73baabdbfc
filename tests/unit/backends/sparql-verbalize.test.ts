import { describe, expect, it } from "vitest";
import { QueryExecutionError } from "@/lib/backends/errors";
import { shapeResult } from "@/lib/backends/sparql/backend";
import { parseSparqlJsonResults } from "@/lib/backends/sparql/engine";
import { PrefixMap } from "@/lib/backends/sparql/namespaces";
import { describeParseError } from "@/lib/backends/sparql/rdf-files";
import type { RdfTerm } from "@/lib/backends/sparql/rdf-terms";
import { verbalizeSparqlResult } from "@/lib/backends/sparql/verbalize";
import type { PathData, RawResult, RowData, TripleData } from "@/lib/backends/types";

const SHOP = "http://example.org/shop/";
const iri = (value: string, label?: string, cls?: string): RdfTerm => ({
  termType: "NamedNode",
  value,
  ...(label ? { label } : {}),
  ...(cls ? { class: cls } : {}),
});
const lit = (value: string, datatype?: string): RdfTerm => ({ termType: "Literal", value, ...(datatype ? { datatype } : {}) });
const ctx = { kbId: "kb-shop", kbName: "Shop", knownLabel: (i: string) => (i === `${SHOP}madeBy` ? "made by" : undefined) };

function raw(text: string, columns: string[], records: Record<string, unknown>[]): RawResult {
  return { query: { language: "sparql", text }, columns, records, truncated: false, elapsedMs: 1 };
}

describe("verbalizeSparqlResult", () => {
  it("turns ?n0 ?p1 ?n1 ?p2 ?n2 walks into path pieces with each hop's direction and the nodes' classes", () => {
    const result = raw(
      "SELECT ?n0 ?p1 ?d1 ?n1 ?p2 ?d2 ?n2 WHERE { … }",
      ["n0", "p1", "d1", "n1", "p2", "d2", "n2"],
      [
        {
          n0: iri(`${SHOP}item/anvil`, "Anvil", `${SHOP}Product`),
          p1: iri(`${SHOP}madeBy`, "made by"),
          d1: lit("out"),
          n1: iri(`${SHOP}org/acme`, "Acme Corporation", `${SHOP}Organisation`),
          p2: iri(`${SHOP}ceoOf`, "chief executive of"),
          d2: lit("in"),
          n2: iri(`${SHOP}people/wile`, "Wile E. Coyote"),
        },
      ],
    );
    const [piece] = verbalizeSparqlResult(result, ctx);
    expect(piece.kind).toBe("path");
    expect(piece.text).toBe("Anvil -made by-> Acme Corporation <-chief executive of- Wile E. Coyote");
    const data = piece.data as PathData;
    expect(data.nodes.map((n) => [n.caption, n.labels])).toEqual([
      ["Anvil", ["Product"]],
      ["Acme Corporation", ["Organisation"]],
      ["Wile E. Coyote", []],
    ]);
    expect(data.edges).toEqual([
      { from: `${SHOP}item/anvil`, to: `${SHOP}org/acme`, type: "made by", properties: {} },
      { from: `${SHOP}people/wile`, to: `${SHOP}org/acme`, type: "chief executive of", properties: {} },
    ]);
    expect(piece.entities).toEqual(["Anvil", "Acme Corporation", "Wile E. Coyote"]);
  });

  it("keeps rows that only look partly like a path as rows", () => {
    const [piece] = verbalizeSparqlResult(
      raw("SELECT ?n0 ?x WHERE { … }", ["n0", "x"], [{ n0: iri(`${SHOP}item/anvil`, "Anvil"), x: lit("1") }]),
      ctx,
    );
    expect(piece.kind).toBe("row");
  });

  it("turns ?s ?p ?o bindings into labelled triples with provenance and entities", () => {
    const result = raw(
      "SELECT ?s ?p ?o WHERE { ?s ?p ?o }",
      ["s", "p", "o"],
      [
        {
          s: iri(`${SHOP}item/anvil`, "Anvil", `${SHOP}Product`),
          p: iri(`${SHOP}madeBy`, "made by"),
          o: iri(`${SHOP}org/acme`, "Acme Corporation"),
        },
      ],
    );
    const [piece] = verbalizeSparqlResult(result, ctx);
    expect(piece.kind).toBe("triple");
    expect(piece.text).toBe("Anvil made by Acme Corporation");
    expect(piece.entities).toEqual(["Anvil", "Acme Corporation"]);
    expect(piece.provenance).toMatchObject({
      kb: "kb-shop",
      kbName: "Shop",
      language: "sparql",
      sourceObject: `${SHOP}Product`,
      location: { subject: `${SHOP}item/anvil`, predicate: `${SHOP}madeBy`, object: `${SHOP}org/acme` },
    });
    expect((piece.data as TripleData).object).toEqual({ value: `${SHOP}org/acme`, label: "Acme Corporation", termType: "NamedNode" });
    // Same fact, same id, whichever query found it.
    const again = verbalizeSparqlResult(raw("SELECT * WHERE { ?s ?p ?o } LIMIT 1", ["s", "p", "o"], result.records), ctx)[0];
    expect(again.id).toBe(piece.id);
  });

  it("reads the triple from the query's pattern when constants fill the other positions", () => {
    const q = `PREFIX shop: <${SHOP}> SELECT ?org WHERE { <${SHOP}item/anvil> shop:madeBy ?org }`;
    const [piece] = verbalizeSparqlResult(raw(q, ["org"], [{ org: iri(`${SHOP}org/acme`, "Acme Corporation") }]), ctx);
    expect(piece.kind).toBe("triple");
    // The constant predicate's label comes from the backend's label cache; the subject falls back to its local name.
    expect(piece.text).toBe("anvil made by Acme Corporation");
  });

  it("uses local names when no label was found, and keeps literal values as they are", () => {
    const q = `SELECT ?item ?price WHERE { ?item <${SHOP}unitPrice> ?price }`;
    const [piece] = verbalizeSparqlResult(
      raw(
        q,
        ["item", "price"],
        [{ item: iri(`${SHOP}item/rocket_skates`), price: lit("349.99", "http://www.w3.org/2001/XMLSchema#decimal") }],
      ),
      ctx,
    );
    expect(piece.text).toBe("rocket skates unit Price 349.99");
    expect(piece.provenance.sourceObject).toBeNull();
  });

  it("makes other bindings table rows named Query result", () => {
    const q = `SELECT ?name (COUNT(?p) AS ?n) WHERE { ?p <${SHOP}madeBy> ?o . ?o <http://www.w3.org/2000/01/rdf-schema#label> ?name } GROUP BY ?name`;
    const pieces = verbalizeSparqlResult(
      raw(
        q,
        ["name", "n"],
        [
          { name: lit("Acme Corporation"), n: lit("2", "http://www.w3.org/2001/XMLSchema#integer") },
          { name: lit("Initech"), n: null },
        ],
      ),
      ctx,
    );
    expect(pieces.map((p) => p.kind)).toEqual(["row", "row"]);
    expect(pieces[0].text).toBe("Query result / name: Acme Corporation, n: 2");
    expect(pieces[1].text).toBe("Query result / name: Initech");
    expect(pieces[0].data as RowData).toMatchObject({
      table: "Query result",
      columns: ["name", "n"],
      values: ["Acme Corporation", 2],
      rowIndex: 0,
    });
    expect(pieces[0].provenance.location).toEqual({ row: 0 });
    expect(pieces[0].entities).toEqual(["Acme Corporation"]);
    expect(new Set(pieces.map((p) => p.id)).size).toBe(2);
  });

  it("falls back to a row when a triple position is unbound or a literal subject", () => {
    const q = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }";
    const pieces = verbalizeSparqlResult(
      raw(
        q,
        ["s", "p", "o"],
        [
          { s: lit("not a subject"), p: iri(`${SHOP}x`), o: lit("y") },
          { s: iri(`${SHOP}a`), p: null, o: lit("y") },
        ],
      ),
      ctx,
    );
    expect(pieces.map((p) => p.kind)).toEqual(["row", "row"]);
  });

  it("verbalizes CONSTRUCT/DESCRIBE records as triples and ASK as one row, honouring an explicit source object", () => {
    const construct = raw(
      `CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }`,
      ["subject", "predicate", "object"],
      [
        {
          subject: iri(`${SHOP}org/acme`, "Acme Corporation"),
          predicate: iri(`${SHOP}basedIn`, "based in"),
          object: iri("http://example.org/geo/France", "France"),
        },
      ],
    );
    const [t] = verbalizeSparqlResult(construct, ctx, { sourceObject: `${SHOP}Organisation` });
    expect(t.text).toBe("Acme Corporation based in France");
    expect(t.provenance.sourceObject).toBe(`${SHOP}Organisation`);
    const [ask] = verbalizeSparqlResult(raw("ASK { ?s ?p ?o }", ["ask"], [{ ask: true }]), ctx);
    expect(ask).toMatchObject({ kind: "row", text: "Query result / ask: true" });
  });
});

describe("SPARQL JSON results", () => {
  it("reads bindings of every term type, including Virtuoso's typed-literal", () => {
    const body = JSON.stringify({
      head: { vars: ["a", "b", "c", "d", "e"] },
      results: {
        bindings: [
          {
            a: { type: "uri", value: "http://x/a" },
            b: { type: "bnode", value: "b0" },
            c: { type: "literal", value: "chat", "xml:lang": "fr" },
            d: { type: "typed-literal", datatype: "http://www.w3.org/2001/XMLSchema#integer", value: "7" },
          },
        ],
      },
    });
    const r = parseSparqlJsonResults(body, "bindings", "q");
    expect(r).toEqual({
      kind: "bindings",
      vars: ["a", "b", "c", "d", "e"],
      rows: [
        {
          a: { termType: "NamedNode", value: "http://x/a" },
          b: { termType: "BlankNode", value: "b0" },
          c: { termType: "Literal", value: "chat", language: "fr" },
          d: { termType: "Literal", value: "7", datatype: "http://www.w3.org/2001/XMLSchema#integer" },
          e: null,
        },
      ],
    });
  });

  it("reads ASK answers in the standard form and in Virtuoso 7's table form", () => {
    expect(parseSparqlJsonResults('{"head":{},"boolean":false}', "boolean", "q")).toEqual({ kind: "boolean", value: false });
    const virtuosoTrue =
      '{"head":{"vars":["__ASK_RETVAL"]},"results":{"bindings":[{"__ASK_RETVAL":{"type":"typed-literal","value":"1"}}]}}';
    expect(parseSparqlJsonResults(virtuosoTrue, "boolean", "q")).toEqual({ kind: "boolean", value: true });
    expect(parseSparqlJsonResults('{"head":{"vars":["__ASK_RETVAL"]},"results":{"bindings":[]}}', "boolean", "q")).toEqual({
      kind: "boolean",
      value: false,
    });
  });

  it("says clearly when the answer is not SPARQL JSON", () => {
    expect(() => parseSparqlJsonResults("<html>Proxy error</html>", "bindings", "q")).toThrow(QueryExecutionError);
    expect(() => parseSparqlJsonResults("<html>Proxy error</html>", "bindings", "q")).toThrow(/not SPARQL JSON results: <html>Proxy error/);
  });

  it("caps records at maxRows and flags truncation", () => {
    const rows = Array.from({ length: 4 }, (_, i) => ({ x: { termType: "Literal" as const, value: String(i) } }));
    expect(shapeResult({ kind: "bindings", vars: ["x"], rows }, 3)).toMatchObject({
      columns: ["x"],
      truncated: true,
      records: rows.slice(0, 3),
    });
    expect(shapeResult({ kind: "bindings", vars: ["x"], rows }, 4).truncated).toBe(false);
    expect(shapeResult({ kind: "bindings", vars: ["x"], rows: rows.slice(0, 1), partial: true }, 4).truncated).toBe(true);
    expect(shapeResult({ kind: "boolean", value: true }, 1)).toEqual({ columns: ["ask"], records: [{ ask: true }], truncated: false });
  });
});

describe("prefixes and parse errors", () => {
  it("gives namespaces short prefixes: well-known ones by convention, others from their path", () => {
    const map = PrefixMap.fromIris([
      `${SHOP}Product`,
      `${SHOP}madeBy`,
      `${SHOP}org/acme`,
      "http://www.w3.org/2000/01/rdf-schema#label",
      "http://mosaic.local/spider/concert_singer/singer#Name",
      "http://mosaic.local/spider/concert_singer/singer/Singer_ID=1",
    ]);
    expect(map.compact(`${SHOP}madeBy`)).toBe("shop:madeBy");
    expect(map.compact(`${SHOP}org/acme`)).toBe("org:acme");
    expect(map.compact("http://www.w3.org/2000/01/rdf-schema#label")).toBe("rdfs:label");
    expect(map.compact("http://mosaic.local/spider/concert_singer/singer#Name")).toBe("singer:Name");
    // A local name that is not a valid prefixed name stays a full IRI.
    expect(map.compact("http://mosaic.local/spider/concert_singer/singer/Singer_ID=1")).toBe(
      "<http://mosaic.local/spider/concert_singer/singer/Singer_ID=1>",
    );
    expect(map.declarations()).toContain(`PREFIX shop: <${SHOP}>`);
  });

  it("names the file and line of a parse error", () => {
    expect(
      describeParseError(
        "products.ttl",
        { message: "Parser error between line 12 column 4 and line 13 column 1: Unexpected end of file" },
        512,
      ),
    ).toBe("products.ttl: line 12: Unexpected end of file (column 4)");
    expect(
      describeParseError("people.nt", { message: "Parser error at line 2 column 23: The object of a triple must be an IRI" }, 512),
    ).toBe("people.nt: line 2: The object of a triple must be an IRI (column 23)");
    expect(
      describeParseError(
        "y.ttl",
        { message: "Parser error at line 1 between columns 1 and 4: not is not a valid subject or graph name" },
        512,
      ),
    ).toBe("y.ttl: line 1: not is not a valid subject or graph name (column 1)");
    expect(describeParseError("x.rdf", { message: "XML namespaces are required in RDF/XML" }, 512)).toBe(
      "x.rdf: XML namespaces are required in RDF/XML",
    );
    // A WebAssembly trap is the parser running out of memory: said plainly, never "unreachable".
    expect(describeParseError("lol.rdf", { message: "unreachable", name: "RuntimeError" }, 512)).toBe(
      "lol.rdf could not be read: reading it needs more than the 512 MB allowed (an XML file whose entities expand without end does this). Check the file, or upload it as Turtle or N-Triples.",
    );
  });
});
