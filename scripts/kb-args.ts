// The command line of `npm run kb` (scripts/kb.ts), parsed into a command the domain functions take.
// Kept apart from the script so the parsing is tested without a database.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { type RegisterKbInput, registerKbSchema } from "../lib/catalog/knowledge-bases.validation";

export const KB_USAGE = `Usage:
  npm run kb -- register --kind <sql|documents|rdf|neo4j> --name NAME (--file F [--file F…] | --connection JSON|@file.json)
                         [--description TEXT] [--group NAME_OR_ID]… [--everyone] [--as EMAIL] [--json]
  npm run kb -- list [--json]
  npm run kb -- refresh --kb NAME_OR_ID [--describe | --index] [--json]
  npm run kb -- delete --kb NAME_OR_ID --yes

  --kind sql with --file: a SQLite database; with --connection: PostgreSQL ({"dialect":"postgres","host":…,"database":…,"user":…,"password":…}).
  --kind documents: one --file per document (PDF, HTML, Markdown, text, CSV); --connection may set {"language":"de"}.
  --kind rdf with --file: Turtle, N-Triples, RDF/XML…; with --connection: a SPARQL endpoint ({"mode":"remote","endpoint":…}).
  --kind neo4j: --connection {"uri":"bolt://…","user":…,"password":…}.
  Access as on the page: only admins until groups are granted (--group) or every signed-in user may use it (--everyone).
  Acts as the admin named by --as (default: the first active admin).`;

/** A mistake on the command line: said with the usage, never a stack trace. */
export class KbUsageError extends Error {
  constructor(message: string) {
    super(`${message}\n\n${KB_USAGE}`);
    this.name = "KbUsageError";
  }
}

const KINDS = { sql: "SQL", documents: "DOCUMENTS", rdf: "SPARQL", neo4j: "CYPHER" } as const;

export type KbCommand =
  | {
      command: "register";
      input: RegisterKbInput;
      groups: string[];
      files: string[];
      as: string | null;
      json: boolean;
    }
  | { command: "list"; json: boolean }
  | { command: "refresh"; kb: string; parts: { describe?: boolean; index?: boolean } | undefined; json: boolean }
  | { command: "delete"; kb: string };

interface Flags {
  values: Map<string, string[]>;
  switches: Set<string>;
}

const VALUE_FLAGS = new Set(["kind", "name", "file", "connection", "description", "group", "as", "kb"]);
const SWITCHES = new Set(["json", "describe", "index", "yes", "everyone"]);

function readFlags(argv: string[]): Flags {
  const values = new Map<string, string[]>();
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--")) throw new KbUsageError(`Unexpected argument "${a}".`);
    const name = a.slice(2);
    if (SWITCHES.has(name)) switches.add(name);
    else if (VALUE_FLAGS.has(name)) {
      const v = argv[++i];
      if (v === undefined || v.startsWith("--")) throw new KbUsageError(`--${name} needs a value.`);
      values.set(name, [...(values.get(name) ?? []), v]);
    } else throw new KbUsageError(`Unknown option --${name}.`);
  }
  return { values, switches };
}

function one(flags: Flags, name: string, required: true): string;
function one(flags: Flags, name: string, required?: false): string | undefined;
function one(flags: Flags, name: string, required = false): string | undefined {
  const all = flags.values.get(name) ?? [];
  if (all.length > 1) throw new KbUsageError(`Give --${name} once.`);
  if (required && all.length === 0) throw new KbUsageError(`--${name} is required.`);
  return all[0];
}

/** `--connection` as JSON, or `@file.json` for one in a file (keeps a password out of the shell history). */
function connectionOf(raw: string | undefined, read: (file: string) => string): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  let text = raw;
  if (raw.startsWith("@")) {
    try {
      text = read(raw.slice(1));
    } catch (e) {
      throw new KbUsageError(`--connection ${raw}: the file cannot be read (${(e as Error).message}).`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new KbUsageError(`--connection is not valid JSON (${(e as Error).message}).`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new KbUsageError("--connection must be a JSON object.");
  return parsed as Record<string, unknown>;
}

/** What a kind is built from when files are given and the connection does not say otherwise. */
function defaultConnection(kind: (typeof KINDS)[keyof typeof KINDS], withFiles: boolean): Record<string, unknown> {
  if (kind === "SQL") return withFiles ? { dialect: "sqlite" } : {};
  if (kind === "SPARQL") return withFiles ? { mode: "embedded" } : {};
  return {};
}

/** Field paths of a failed registration input in the words of the command line. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const where =
        i.path.length === 0 ? "" : i.path[0] === "connection" ? `--connection ${i.path.slice(1).join(".")}` : `--${String(i.path[0])}`;
      return `  ${where || "input"}: ${i.message}`;
    })
    .join("\n");
}

export function parseKbArgs(argv: string[], read: (file: string) => string = (f) => readFileSync(f, "utf8")): KbCommand {
  const [command, ...rest] = argv;
  const flags = readFlags(rest);
  const json = flags.switches.has("json");
  switch (command) {
    case "register": {
      const kindWord = one(flags, "kind", true);
      const kind = KINDS[kindWord as keyof typeof KINDS];
      if (!kind) throw new KbUsageError(`--kind must be one of ${Object.keys(KINDS).join(", ")}; got "${kindWord}".`);
      const files = flags.values.get("file") ?? [];
      const connection = { ...defaultConnection(kind, files.length > 0), ...connectionOf(one(flags, "connection"), read) };
      const input = {
        kind,
        name: one(flags, "name", true),
        description: one(flags, "description") ?? "",
        connection,
        groupIds: [],
        openToEveryone: flags.switches.has("everyone"),
      } as RegisterKbInput;
      // The schema's own verdict, before anything is opened: the same rules as the page's form.
      const checked = registerKbSchema.safeParse(input);
      if (!checked.success) throw new KbUsageError(`The registration is not valid:\n${describeIssues(checked.error)}`);
      return { command, input, groups: flags.values.get("group") ?? [], files, as: one(flags, "as") ?? null, json };
    }
    case "list":
      return { command, json };
    case "refresh": {
      const describe = flags.switches.has("describe");
      const index = flags.switches.has("index");
      if (describe && index) throw new KbUsageError("Give --describe or --index, not both (neither: both).");
      return { command, kb: one(flags, "kb", true), parts: describe ? { describe } : index ? { index } : undefined, json };
    }
    case "delete": {
      if (!flags.switches.has("yes")) throw new KbUsageError("Deleting removes the knowledge base and its files: add --yes to confirm.");
      return { command, kb: one(flags, "kb", true) };
    }
    default:
      throw new KbUsageError(command ? `Unknown command "${command}".` : "Give a command.");
  }
}
