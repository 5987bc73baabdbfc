// The embedded RDF store, run off the main thread. Oxigraph's WebAssembly `query()` is synchronous and
// cannot be interrupted from the thread that runs it, so a runaway query would freeze the server: here it
// only freezes this worker, which the parent terminates on timeout (embedded-engine.ts).
//
// Plain `.mjs` on purpose: a Worker is started from a file path by Node itself, outside the TypeScript
// toolchain and outside the Next.js bundle, so this file must run as-is under plain Node. It imports
// nothing from the app; `oxigraph` resolves from the repository's node_modules.
//
// Messages in:  { id, op: "load", file }                      -> { id, ok, triples }
//               { id, op: "query", text, form }               -> { id, ok, body | triples }
//               { id, op: "normalize", files, existingFile }  -> { id, ok, nquads, counts, triples }
// Failures:     { id, ok: false, error: { message, name, file? } }
import { existsSync, readFileSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import oxigraph from "oxigraph";

const MEDIA_TYPES = {
  turtle: "text/turtle",
  ntriples: "application/n-triples",
  rdfxml: "application/rdf+xml",
  nquads: "application/n-quads",
};

let store = new oxigraph.Store();

function termToJson(term) {
  if (term.termType === "Literal") {
    const out = { termType: "Literal", value: term.value };
    if (term.language) out.language = term.language;
    else out.datatype = term.datatype.value;
    return out;
  }
  if (term.termType === "NamedNode" || term.termType === "BlankNode") return { termType: term.termType, value: term.value };
  // RDF-star quoted triples have no plain-JSON form in our records: keep their N-Triples text.
  return { termType: "Literal", value: term.toString() };
}

function load(file) {
  const next = new oxigraph.Store();
  if (existsSync(file)) next.load(readFileSync(file), { format: MEDIA_TYPES.nquads });
  store = next;
  return { triples: store.size };
}

function query(text, form) {
  if (form === "triples") {
    const quads = store.query(text);
    return { triples: quads.map((q) => ({ subject: termToJson(q.subject), predicate: termToJson(q.predicate), object: termToJson(q.object) })) };
  }
  // SELECT and ASK come back as SPARQL JSON results, the same format a remote endpoint answers with.
  return { body: store.query(text, { results_format: "application/sparql-results+json" }) };
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
      err.file = f.name;
      throw err;
    }
    // Triples this file added: one already stored, or in an earlier file, counts once.
    counts.push({ name: f.name, triples: merged.size - before });
  }
  return { nquads: merged.dump({ format: MEDIA_TYPES.nquads }), counts, triples: merged.size };
}

parentPort.on("message", (msg) => {
  try {
    let result;
    if (msg.op === "load") result = load(msg.file);
    else if (msg.op === "query") result = query(msg.text, msg.form);
    else if (msg.op === "normalize") result = normalize(msg.files, msg.existingFile);
    else throw new Error(`unknown operation ${msg.op}`);
    parentPort.postMessage({ id: msg.id, ok: true, ...result });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // `name` lets the parent tell a WebAssembly trap (RuntimeError: the store may be broken, restart the
    // worker) from an ordinary query or parse error.
    parentPort.postMessage({ id: msg.id, ok: false, error: { message, name: e?.name, file: e?.file } });
  }
});
