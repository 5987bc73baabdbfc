"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { testConnectionAction } from "@/lib/actions/knowledge-bases";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import { type RegisterKbInput, registerKbSchema } from "@/lib/catalog/knowledge-bases.validation";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, TextInput } from "../ui/field";
import { KbAccessFieldset } from "./access-fieldset";
import { FileDropZone } from "../ui/file-drop-zone";

type Kind = "DOCUMENTS" | "SQL" | "SPARQL" | "CYPHER";
type Source = "documents" | "sqlite" | "postgres" | "rdf" | "endpoint" | "neo4j";

const SOURCES: { id: Source; kind: Kind; title: string; detail: string; accept?: string; multiple?: boolean }[] = [
  {
    id: "documents",
    kind: "DOCUMENTS",
    title: "Documents",
    detail: "Upload txt, md, html, pdf, csv or json files.",
    accept: ".txt,.md,.markdown,.html,.htm,.pdf,.csv,.json",
    multiple: true,
  },
  {
    id: "sqlite",
    kind: "SQL",
    title: "SQLite database",
    detail: "Upload a .sqlite / .db file; it is opened read-only.",
    accept: ".sqlite,.sqlite3,.db",
  },
  { id: "postgres", kind: "SQL", title: "PostgreSQL", detail: "Connect with a read-only role; queries run in read-only transactions." },
  {
    id: "rdf",
    kind: "SPARQL",
    title: "RDF graph",
    detail: "Upload Turtle, N-Triples or RDF/XML into an embedded Oxigraph store.",
    accept: ".ttl,.nt,.rdf,.owl,.xml",
    multiple: true,
  },
  { id: "endpoint", kind: "SPARQL", title: "SPARQL endpoint", detail: "Any SPARQL 1.1 endpoint over HTTP (Virtuoso, Fuseki, GraphDB…)." },
  { id: "neo4j", kind: "CYPHER", title: "Neo4j", detail: "A Neo4j 5 database over Bolt; queries run in READ sessions." },
];

interface Fields {
  name: string;
  description: string;
  groupIds: string[];
  openToEveryone: boolean;
  host: string;
  port: string;
  database: string;
  user: string;
  schema: string;
  password: string;
  endpoint: string;
  defaultGraph: string;
  uri: string;
  /** Documents: where the collection's index lives. */
  engine: "sqlite" | "opensearch";
  searchUrl: string;
  acceptPrivilegeRisk: boolean;
}

const EMPTY: Fields = {
  name: "",
  description: "",
  groupIds: [],
  openToEveryone: false,
  host: "localhost",
  port: "5432",
  database: "",
  user: "",
  schema: "public",
  password: "",
  endpoint: "",
  defaultGraph: "",
  uri: "bolt://localhost:7687",
  engine: "sqlite",
  searchUrl: "",
  acceptPrivilegeRisk: false,
};

function buildInput(source: Source, f: Fields): RegisterKbInput {
  const base = { name: f.name, description: f.description, groupIds: f.groupIds, openToEveryone: f.openToEveryone };
  switch (source) {
    case "documents":
      return f.engine === "opensearch"
        ? {
            ...base,
            kind: "DOCUMENTS",
            connection: { language: "en", engine: "opensearch", searchUrl: f.searchUrl, user: f.user, password: f.password },
          }
        : { ...base, kind: "DOCUMENTS", connection: { language: "en" } };
    case "sqlite":
      return { ...base, kind: "SQL", connection: { dialect: "sqlite" } };
    case "postgres":
      return {
        ...base,
        kind: "SQL",
        connection: {
          dialect: "postgres",
          host: f.host,
          port: Number(f.port),
          database: f.database,
          user: f.user,
          schema: f.schema || "public",
          ssl: false,
          password: f.password,
          acceptPrivilegeRisk: f.acceptPrivilegeRisk,
        },
      };
    case "rdf":
      return { ...base, kind: "SPARQL", connection: { mode: "embedded" } };
    case "endpoint":
      return {
        ...base,
        kind: "SPARQL",
        connection: { mode: "remote", endpoint: f.endpoint, defaultGraph: f.defaultGraph, user: f.user, password: f.password },
      };
    case "neo4j":
      return { ...base, kind: "CYPHER", connection: { uri: f.uri, user: f.user, database: f.database, password: f.password } };
  }
}

async function submitRegistration(input: RegisterKbInput, files: File[]): Promise<{ id: string; warnings: string[] }> {
  const body = new FormData();
  body.set("payload", JSON.stringify(input));
  for (const f of files) body.append("files", f);
  let res: Response;
  try {
    res = await fetch("/api/knowledge-bases", { method: "POST", body });
  } catch {
    throw new ActionFailure("Could not reach the server. Check your connection and try again.");
  }
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new ActionFailure(json?.error?.message ?? `Registration failed (HTTP ${res.status}).`, json?.error?.fields ?? {});
  return json;
}

export function RegisterKbForm({ groups }: { groups: { id: string; name: string }[] }) {
  const router = useRouter();
  const [source, setSource] = useState<Source>("documents");
  const [f, setF] = useState<Fields>(EMPTY);
  const [files, setFiles] = useState<File[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const spec = SOURCES.find((s) => s.id === source)!;
  const onCluster = source === "documents" && f.engine === "opensearch";
  const set = (k: keyof Fields) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });

  const register = useMutation({
    mutationFn: ({ input, files }: { input: RegisterKbInput; files: File[] }) => submitRegistration(input, files),
    onSuccess: (r) =>
      router.push(`/knowledge-bases/${r.id}${r.warnings.length ? `?warnings=${encodeURIComponent(r.warnings.join("\n"))}` : ""}`),
    onError: (e) => setErrors(e instanceof ActionFailure ? e.fields : {}),
  });
  const test = useMutation({ mutationFn: (input: RegisterKbInput) => unwrap(testConnectionAction(input)) });

  /** `forTest`: the connection test needs the connection fields only, not the files. */
  function validate(forTest = false): RegisterKbInput | null {
    const input = buildInput(source, f);
    const parsed = registerKbSchema.safeParse(input);
    const errs: Record<string, string> = {};
    if (!parsed.success) for (const i of parsed.error.issues) errs[String(i.path[i.path.length - 1])] ??= i.message;
    if (spec.accept && files.length === 0 && !forTest) errs.files = "Choose at least one file.";
    setErrors(errs);
    return Object.keys(errs).length ? null : input;
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const input = validate();
    if (input) register.mutate({ input, files });
  }

  const connectionFields = (
    <>
      {source === "postgres" && (
        <div className="grid gap-3 sm:grid-cols-2">
          <Field id="kb-host" label="Host" error={errors.host}>
            <TextInput id="kb-host" value={f.host} onChange={set("host")} invalid={!!errors.host} />
          </Field>
          <Field id="kb-port" label="Port" error={errors.port}>
            <TextInput id="kb-port" inputMode="numeric" value={f.port} onChange={set("port")} invalid={!!errors.port} />
          </Field>
          <Field id="kb-database" label="Database" error={errors.database}>
            <TextInput id="kb-database" value={f.database} onChange={set("database")} invalid={!!errors.database} />
          </Field>
          <Field id="kb-schema" label="Schema">
            <TextInput id="kb-schema" value={f.schema} onChange={set("schema")} />
          </Field>
        </div>
      )}
      {source === "endpoint" && (
        <>
          <Field id="kb-endpoint" label="Endpoint URL" error={errors.endpoint}>
            <TextInput
              id="kb-endpoint"
              type="url"
              placeholder="https://example.org/sparql"
              value={f.endpoint}
              onChange={set("endpoint")}
              invalid={!!errors.endpoint}
            />
          </Field>
          <Field id="kb-graph" label="Default graph (optional)">
            <TextInput id="kb-graph" value={f.defaultGraph} onChange={set("defaultGraph")} />
          </Field>
        </>
      )}
      {source === "neo4j" && (
        <div className="grid gap-3 sm:grid-cols-2">
          <Field id="kb-uri" label="Bolt URI" error={errors.uri}>
            <TextInput id="kb-uri" value={f.uri} onChange={set("uri")} invalid={!!errors.uri} />
          </Field>
          <Field id="kb-neo-db" label="Database (optional)">
            <TextInput id="kb-neo-db" value={f.database} onChange={set("database")} />
          </Field>
        </div>
      )}
      {onCluster && (
        <Field
          id="kb-search-url"
          label="Cluster address (optional)"
          error={errors.searchUrl}
          hint="Empty: the cluster this server is configured with (SEARCH_URL)."
        >
          <TextInput
            id="kb-search-url"
            type="url"
            placeholder="https://search.example.com:9200"
            value={f.searchUrl}
            onChange={set("searchUrl")}
            invalid={!!errors.searchUrl}
          />
        </Field>
      )}
      {(source === "postgres" || source === "endpoint" || source === "neo4j" || onCluster) && (
        <div className="grid gap-3 sm:grid-cols-2">
          <Field id="kb-user" label={source === "endpoint" || onCluster ? "User (optional)" : "User"} error={errors.user}>
            <TextInput id="kb-user" autoComplete="off" value={f.user} onChange={set("user")} invalid={!!errors.user} />
          </Field>
          <Field id="kb-password" label="Password" hint="Stored encrypted; never shown again.">
            <TextInput id="kb-password" type="password" autoComplete="new-password" value={f.password} onChange={set("password")} />
          </Field>
        </div>
      )}
      {source === "postgres" && (
        <div
          className={`rounded-md border p-3 text-sm ${errors.acceptPrivilegeRisk ? "border-rose-300 bg-rose-50" : "border-amber-200 bg-amber-50"}`}
        >
          <label className="flex items-start gap-2">
            <input
              type="checkbox"
              className="mt-1"
              checked={f.acceptPrivilegeRisk}
              onChange={(e) => setF({ ...f, acceptPrivilegeRisk: e.target.checked })}
              aria-describedby="kb-risk-explained"
            />
            <span>
              <span className="font-medium">I accept the risk if this user may do more than read</span>
              <span id="kb-risk-explained" className="mt-0.5 block text-slate-700">
                Mosaic only reads, but it checks what the user could do. A superuser, or a user that can change tables, create objects, read
                tables outside the schema you name or run functions that reach the server&apos;s files or other servers, is refused unless
                you tick this: any flaw in the query checks would then reach your data or the server. Prefer a user with SELECT on the
                schema&apos;s tables only.
              </span>
            </span>
          </label>
          {errors.acceptPrivilegeRisk && <p className="mt-1 text-rose-700">{errors.acceptPrivilegeRisk}</p>}
        </div>
      )}
    </>
  );

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-6" aria-label="Register a knowledge base">
      <fieldset>
        <legend className="mb-2 text-sm font-medium">Source</legend>
        <div className="grid gap-2 sm:grid-cols-2 lg:grid-cols-3">
          {SOURCES.map((s) => (
            <label
              key={s.id}
              className={`cursor-pointer rounded-lg border p-3 text-sm ${source === s.id ? "border-brand-500 bg-brand-50 ring-1 ring-brand-500" : "border-slate-200 bg-white hover:border-slate-300"}`}
            >
              <input
                type="radio"
                name="source"
                value={s.id}
                checked={source === s.id}
                onChange={() => {
                  setSource(s.id);
                  setFiles([]);
                  setErrors({});
                  test.reset();
                }}
                className="sr-only"
              />
              <span className="block font-medium">{s.title}</span>
              <span className="block text-slate-600">{s.detail}</span>
            </label>
          ))}
        </div>
      </fieldset>

      <section className="space-y-3 rounded-lg border border-slate-200 bg-white p-5">
        <Field id="kb-name" label="Name" error={errors.name}>
          <TextInput id="kb-name" value={f.name} onChange={set("name")} invalid={!!errors.name} />
        </Field>
        <Field id="kb-description" label="Description" hint="What is in it and what it is good for: source selection reads this.">
          <textarea
            id="kb-description"
            rows={3}
            value={f.description}
            onChange={set("description")}
            className="block w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
          />
        </Field>
        {spec.accept && (
          <FileDropZone
            id="kb-files"
            label={spec.multiple ? "Files" : "File"}
            accept={spec.accept}
            multiple={spec.multiple}
            files={files}
            error={errors.files}
            onChange={(next) => {
              setFiles(next);
              setErrors((all) => Object.fromEntries(Object.entries(all).filter(([k]) => k !== "files")));
            }}
          />
        )}
        {source === "documents" && (
          <fieldset>
            <legend className="text-sm font-medium">Where the search index is kept</legend>
            <div className="mt-1 flex flex-wrap gap-x-5 gap-y-1">
              <label className="flex items-center gap-1.5 text-sm">
                <input
                  type="radio"
                  name="engine"
                  value="sqlite"
                  checked={f.engine === "sqlite"}
                  onChange={() => {
                    setF({ ...f, engine: "sqlite" });
                    test.reset();
                  }}
                />
                On this server
              </label>
              <label className="flex items-center gap-1.5 text-sm">
                <input
                  type="radio"
                  name="engine"
                  value="opensearch"
                  checked={f.engine === "opensearch"}
                  onChange={() => {
                    setF({ ...f, engine: "opensearch" });
                    test.reset();
                  }}
                />
                In an OpenSearch cluster (for large collections, or several app servers)
              </label>
            </div>
          </fieldset>
        )}
        {(!spec.accept || onCluster) && connectionFields}
        <KbAccessFieldset
          idPrefix="kb-register"
          groups={groups}
          groupIds={f.groupIds}
          openToEveryone={f.openToEveryone}
          onChange={(next) => setF({ ...f, ...next })}
        />
      </section>

      {test.data && (
        <Alert tone={test.data.ok ? "success" : "error"}>
          {test.data.ok ? "Connection works: " : "Connection failed: "}
          {test.data.message}
        </Alert>
      )}
      {test.error && <Alert tone="error">{test.error.message}</Alert>}
      {register.error && <Alert tone="error">{register.error.message}</Alert>}

      <div className="flex flex-wrap gap-3">
        {(!spec.accept || onCluster) && (
          <Button
            variant="secondary"
            disabled={test.isPending}
            onClick={() => {
              const input = validate(true);
              if (input) test.mutate(input);
            }}
          >
            {test.isPending ? "Testing…" : "Test connection"}
          </Button>
        )}
        <Button type="submit" disabled={register.isPending}>
          {register.isPending ? "Registering… (describing the source)" : "Register"}
        </Button>
      </div>
    </form>
  );
}
