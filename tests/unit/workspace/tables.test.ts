import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Prisma } from "@/lib/db/generated/client";
import { decodeRow, encodeRow, keyCheck } from "@/lib/workspace/manifest";
import { WORKSPACE_TABLES } from "@/lib/workspace/tables";

const schema = readFileSync("prisma/schema.prisma", "utf8");

/** Each model's fields as the schema file declares them: name → type text ("String?", "User", "Json?"). */
function models(): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const m of schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    const fields = new Map<string, string>();
    for (const line of m[2]!.split("\n")) {
      const f = /^\s+(\w+)\s+([\w?[\]]+)/.exec(line);
      if (f && !line.trim().startsWith("@@") && !line.trim().startsWith("//")) fields.set(f[1]!, f[2]!);
    }
    out.set(m[1]!, fields);
  }
  return out;
}

describe("the tables a workspace export carries", () => {
  it("lists every model of the schema once, each with its client delegate", () => {
    expect(WORKSPACE_TABLES.map((t) => t.model).sort()).toEqual(Object.values(Prisma.ModelName).sort());
    for (const t of WORKSPACE_TABLES) expect(t.delegate).toBe(t.model[0]!.toLowerCase() + t.model.slice(1));
  });

  it("inserts every row after the rows it references", () => {
    const all = models();
    const carried = WORKSPACE_TABLES.filter((t) => !t.skip).map((t) => t.model);
    for (const [i, model] of carried.entries()) {
      for (const line of schema.match(new RegExp(`^model ${model} \\{[\\s\\S]*?^\\}`, "m"))![0].split("\n")) {
        const ref = /^\s+\w+\s+(\w+)\??\s+@relation\(.*fields:/.exec(line)?.[1];
        if (!ref || !all.has(ref)) continue;
        expect(carried.indexOf(ref), `${model} references ${ref}`).toBeGreaterThanOrEqual(0);
        expect(carried.indexOf(ref), `${model} references ${ref}`).toBeLessThan(i);
      }
    }
  });

  it("names exactly the nullable Json fields of each carried model", () => {
    const all = models();
    for (const t of WORKSPACE_TABLES.filter((x) => !x.skip)) {
      const nullable = [...all.get(t.model)!].filter(([, type]) => type === "Json?").map(([name]) => name);
      expect(t.nullableJson ?? [], t.model).toEqual(nullable);
    }
  });
});

describe("rows as JSON lines", () => {
  it("brings dates and bytes back as they were, and leaves Json values alone", () => {
    const row = {
      id: "a",
      at: new Date("2026-11-25T10:00:00.000Z"),
      vector: new Uint8Array([0, 1, 255]),
      config: { nested: { when: "2026" } },
      n: null,
    };
    const back = decodeRow(encodeRow(row));
    expect(back).toEqual({ ...row, vector: new Uint8Array([0, 1, 255]) });
    expect(back.at).toBeInstanceOf(Date);
  });

  it("checks a key without revealing it", () => {
    const key = Buffer.alloc(32, 7);
    expect(keyCheck(key)).toBe(keyCheck(Buffer.alloc(32, 7)));
    expect(keyCheck(key)).not.toBe(keyCheck(Buffer.alloc(32, 8)));
    expect(keyCheck(key)).not.toContain(key.toString("hex").slice(0, 8));
  });
});
