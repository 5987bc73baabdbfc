// The embedded RDF store, run in its own process (lib/backends/sparql/embedded-engine.ts). Oxigraph's
// WebAssembly `query()` is synchronous and cannot be interrupted, and its memory lives outside the
// JavaScript heap: a worker thread's resourceLimits do not bound it (a SPARQL CONCAT doubling grew a
// worker to 3.3 GB). Here the parent starts Node with --wasm-max-mem-pages and --max-old-space-size,
// watches the process's memory, and kills it at the query's deadline; a query that needs more memory
// than allowed fails inside WebAssembly ("unreachable"), and only this process is lost.
//
// Plain `.mjs` on purpose: Node starts it directly, outside the TypeScript toolchain and outside the
// Next.js bundle. It imports nothing from the app; `oxigraph` resolves from the repository's node_modules.
//
// Messages in:  { id, op: "load", file }                                   -> { id, ok, triples }
//               { id, op: "query", text, form, variables?, maxValueBytes, maxResultBytes } -> { id, ok, kind, … }
//               { id, op: "normalize", files, existingFile }               -> { id, ok, nquads, counts, triples }
// Failures:     { id, ok: false, error: { message, name, file?, tooLarge? } }
import { existsSync, readFileSync } from "node:fs";
import oxigraph from "oxigraph";

const MEDIA_TYPES = {
  turtle: "text/turtle",
  ntriples: "application/n-triples",
  rdfxml: "application/rdf+xml",
  nquads: "application/n-quads",
};

let store = new oxigraph.Store();

class ResultTooLarge extends Error {}

/** A term as plain JSON, its text cut at the per-value budget (the same mark as postgres/engine.ts cutMark). */
function termToJson(term, budget) {
  const cut = (v) => {
    if (v.length * 3 <= budget.maxValueBytes) return v;
    const bytes = Buffer.byteLength(v, "utf8");
    if (bytes <= budget.maxValueBytes) return v;
    const head = Buffer.from(v.slice(0, budget.maxValueBytes), "utf8").subarray(0, budget.maxValueBytes).toString("utf8");
    return `${head}… [cut: the value is ${bytes.toLocaleString("en")} bytes long; values are kept up to ${budget.maxValueBytes.toLocaleString("en")} bytes]`;
  };
  let out;
  if (term.termType === "Literal") {
    out = { termType: "Literal", value: cut(term.value) };
    if (term.language) out.language = term.language;
    else out.datatype = term.datatype.value;
  } else if (term.termType === "NamedNode" || term.termType === "BlankNode") {
    out = { termType: term.termType, value: cut(term.value) };
  } else {
    // RDF-star quoted triples have no plain-JSON form in our records: keep their N-Triples text.
    out = { termType: "Literal", value: cut(term.toString()) };
  }
  budget.bytes += out.value.length + 16;
  if (budget.bytes > budget.maxResultBytes) throw new ResultTooLarge();
  return out;
}

function load(file) {
  const next = new oxigraph.Store();
  if (existsSync(file)) next.load(readFileSync(file), { format: MEDIA_TYPES.nquads });
  store = next;
  return { triples: store.size };
}

/**
 * Runs a checked query (its LIMIT already capped) and converts the answer term by term, so every value
 * is measured before it is kept and the whole answer stops at the result budget.
 */
function query(text, form, maxValueBytes, maxResultBytes, variables) {
  const budget = { maxValueBytes, maxResultBytes, bytes: 0 };
  const result = store.query(text);
  if (form === "boolean") return { kind: "boolean", value: result === true };
  if (form === "triples") {
    const triples = [];
    for (const q of result)
      triples.push({
        subject: termToJson(q.subject, budget),
        predicate: termToJson(q.predicate, budget),
        object: termToJson(q.object, budget),
      });
    return { kind: "triples", triples };
  }
  // Unbound variables are missing from a solution, so the projection comes from the caller's parse when
  // it has one; otherwise variables in the order they first appear, or the JSON head of an empty answer.
  const vars = new Set(Array.isArray(variables) ? variables : []);
  const rows = [];
  for (const binding of result) {
    const row = {};
    for (const [name, term] of binding) {
      vars.add(name);
      row[name] = termToJson(term, budget);
    }
    rows.push(row);
  }
  if (vars.size === 0 && rows.length === 0) {
    const head = JSON.parse(store.query(text, { results_format: "application/sparql-results+json" })).head;
    for (const v of head?.vars ?? []) vars.add(v);
  }
  return { kind: "bindings", vars: [...vars], rows };
}

/**
 * Parses every upload into a fresh store (plus the data already stored), so a bad file changes nothing.
 * Store.load is Oxigraph's bulk path: parsing to JS quads and adding them one by one is ten times slower.
 */
function normalize(files, existingFile) {
  const merged = new oxigraph.Store();
  if (existingFile && existsSync(existingFile)) merged.load(readFileSync(existingFile), { format: MEDIA_TYPES.nquads });
  const counts = [];
  for (const f of files) {
    const before = merged.size;
    try {
      merged.load(f.bytes, { format: MEDIA_TYPES[f.format] });
    } catch (e) {
      const err = new Error(e instanceof Error ? e.message : String(e));
      err.name = e?.name ?? "Error";
      err.file = f.name;
      throw err;
    }
    // Triples this file added: one already stored, or in an earlier file, counts once.
    counts.push({ name: f.name, triples: merged.size - before });
  }
  return { nquads: merged.dump({ format: MEDIA_TYPES.nquads }), counts, triples: merged.size };
}

process.on("message", (msg) => {
  if (!msg || typeof msg !== "object") return;
  try {
    let result;
    if (msg.op === "load") result = load(msg.file);
    else if (msg.op === "query") result = query(msg.text, msg.form, msg.maxValueBytes, msg.maxResultBytes, msg.variables);
    else if (msg.op === "normalize") result = normalize(msg.files, msg.existingFile);
    else throw new Error(`unknown operation ${msg.op}`);
    process.send({ id: msg.id, ok: true, ...result });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // `name` lets the parent tell a WebAssembly trap (RuntimeError: out of memory, or the store is
    // broken; the parent restarts this process) from an ordinary query or parse error.
    process.send({ id: msg.id, ok: false, error: { message, name: e?.name, file: e?.file, tooLarge: e instanceof ResultTooLarge } });
  }
});
// The parent went away: nothing is left to answer.
process.on("disconnect", () => process.exit(0));
process.send({ type: "ready" });
