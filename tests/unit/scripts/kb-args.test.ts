import { describe, expect, it } from "vitest";
import { KbUsageError, parseKbArgs } from "@/scripts/kb-args";

const files: Record<string, string> = {
  "pg.json": '{"dialect":"postgres","host":"db","database":"hr","user":"reader","password":"s3cret"}',
};
const read = (f: string) => {
  if (!(f in files)) throw new Error("ENOENT");
  return files[f]!;
};

describe("npm run kb: the command line", () => {
  it("registers a SQLite file as a SQL knowledge base with groups", () => {
    const c = parseKbArgs(
      ["register", "--kind", "sql", "--name", "HR", "--file", "hr.sqlite", "--group", "HR team", "--group", "Finance"],
      read,
    );
    expect(c).toEqual({
      command: "register",
      input: { kind: "SQL", name: "HR", description: "", connection: { dialect: "sqlite" }, groupIds: [], openToEveryone: false },
      groups: ["HR team", "Finance"],
      files: ["hr.sqlite"],
      as: null,
      json: false,
    });
  });

  it("opens a knowledge base to every signed-in user only when asked", () => {
    const c = parseKbArgs(["register", "--kind", "sql", "--name", "Wiki", "--file", "w.sqlite", "--everyone"], read);
    expect(c.command === "register" && c.input.openToEveryone).toBe(true);
  });

  it("takes a connection from a file, so a password stays out of the shell history", () => {
    const c = parseKbArgs(["register", "--kind", "sql", "--name", "HR", "--connection", "@pg.json", "--json"], read);
    expect(c.command === "register" && c.input.connection).toMatchObject({ dialect: "postgres", host: "db", password: "s3cret" });
    expect(c.command === "register" && c.json).toBe(true);
  });

  it("names what is wrong, in the command line's words, with the usage", () => {
    const bad = (argv: string[]) => () => parseKbArgs(argv, read);
    expect(bad(["register", "--kind", "oracle", "--name", "X"])).toThrow(/--kind must be one of sql, documents, rdf, neo4j; got "oracle"/);
    expect(bad(["register", "--kind", "neo4j", "--name", "G", "--connection", '{"uri":"http://x","user":"neo4j"}'])).toThrow(
      /--connection uri: Use a bolt:\/\/ or neo4j:\/\/ URI/,
    );
    expect(bad(["register", "--kind", "sql", "--name", "HR", "--connection", "{oops"])).toThrow(/--connection is not valid JSON/);
    expect(bad(["register", "--kind", "sql", "--name", "HR", "--connection", "@missing.json"])).toThrow(/the file cannot be read/);
    expect(bad(["register", "--kind", "sql", "--file", "a.sqlite"])).toThrow(/--name is required/);
    expect(bad(["register", "--kind", "sql", "--name", ""])).toThrow(/--name needs a value|--name: Enter a name/);
    expect(bad(["delete", "--kb", "HR"])).toThrow(/add --yes to confirm/);
    expect(bad(["refresh", "--kb", "HR", "--describe", "--index"])).toThrow(/not both/);
    expect(bad(["rename"])).toThrow(KbUsageError);
    expect(bad(["list", "--verbose"])).toThrow(/Unknown option --verbose/);
  });

  it("refreshes a part or the whole, and deletes only when confirmed", () => {
    expect(parseKbArgs(["refresh", "--kb", "HR", "--index"])).toEqual({
      command: "refresh",
      kb: "HR",
      parts: { index: true },
      json: false,
    });
    expect(parseKbArgs(["refresh", "--kb", "HR"])).toEqual({ command: "refresh", kb: "HR", parts: undefined, json: false });
    expect(parseKbArgs(["delete", "--kb", "HR", "--yes"])).toEqual({ command: "delete", kb: "HR" });
  });
});
