import type { PrismaClient } from "../../db/generated/client";
import { AppError } from "../../errors";
import { BUILTIN_SUITES, type BuiltinSuite, type SuiteDefinition } from "../types";
import { CUSTOM_PREFIX, customSuite } from "./custom";
import { demoSuite } from "./demo";
import { mixedSuite } from "./mixed";
import { scifactSuite } from "./scifact";
import { sparqlFromSpiderSuite, spiderSuite } from "./spider";
import { tatqaSuite } from "./tatqa";
import { text2cypherSuite } from "./text2cypher";

export function isBuiltinSuite(key: string): key is BuiltinSuite {
  return (BUILTIN_SUITES as readonly string[]).includes(key);
}

/** The built-in suites as loaded from DATASETS_DIR (read on each call: the files are small). */
export function builtinSuite(key: BuiltinSuite, datasetsDir: string): SuiteDefinition {
  switch (key) {
    case "spider":
      return spiderSuite(datasetsDir);
    case "sparql-from-spider":
      return sparqlFromSpiderSuite(datasetsDir);
    case "tatqa":
      return tatqaSuite(datasetsDir);
    case "scifact":
      return scifactSuite(datasetsDir);
    case "text2cypher":
      return text2cypherSuite(datasetsDir);
    case "mixed":
      return mixedSuite(datasetsDir);
    case "demo":
      return demoSuite();
  }
}

/** A suite by key: a built-in name, or custom:<id> / the name of an authored suite. */
export async function loadSuite(prisma: PrismaClient, key: string, datasetsDir: string): Promise<SuiteDefinition> {
  if (isBuiltinSuite(key)) {
    try {
      return builtinSuite(key, datasetsDir);
    } catch (e) {
      throw new AppError("UNAVAILABLE", (e as Error).message);
    }
  }
  const id = key.startsWith(CUSTOM_PREFIX)
    ? key.slice(CUSTOM_PREFIX.length)
    : (await prisma.evalSuite.findUnique({ where: { name: key }, select: { id: true } }))?.id;
  const suite = id ? await customSuite(prisma, id) : null;
  if (!suite) {
    throw new AppError(
      "NOT_FOUND",
      `There is no suite "${key}". Built-in suites: ${BUILTIN_SUITES.join(", ")}; authored suites are named as in the Evaluation page (or custom:<id>).`,
    );
  }
  return suite;
}
