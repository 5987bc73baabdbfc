// npm run kb -- register|list|refresh|delete …: knowledge bases from a script or a deployment, through
// the same domain functions as the Knowledge bases pages (lib/ingest/register.ts, lib/ingest/refresh.ts,
// lib/catalog/knowledge-bases.ts), acting as an admin. Usage: scripts/kb-args.ts (KB_USAGE).
import { readFileSync } from "node:fs";
import path from "node:path";
import { closeAllBackends } from "../lib/backends/registry";
import { listKnowledgeBases, deleteKnowledgeBase } from "../lib/catalog/knowledge-bases";
import { openAndBootstrap } from "../lib/db/bootstrap";
import type { PrismaClient } from "../lib/db/generated/client";
import { catalogDeps } from "../lib/deps";
import { loadEnv } from "../lib/env";
import { AppError } from "../lib/errors";
import { registerKnowledgeBase } from "../lib/ingest/register";
import { refreshKnowledgeBase } from "../lib/ingest/refresh";
import { runCli } from "./cli";
import { KbUsageError, parseKbArgs } from "./kb-args";

async function adminActor(prisma: PrismaClient, email: string | null) {
  const user = email
    ? await prisma.user.findUnique({ where: { email: email.toLowerCase() }, include: { memberships: true } })
    : await prisma.user.findFirst({
        where: { role: "ADMIN", active: true },
        orderBy: { createdAt: "asc" },
        include: { memberships: true },
      });
  if (!user || !user.active) throw new Error(email ? `No active user ${email}.` : "No active admin exists; pass --as <email>.");
  if (user.role !== "ADMIN") throw new Error(`${user.email} is not an admin; only admins manage knowledge bases.`);
  return user;
}

async function kbByRef(prisma: PrismaClient, ref: string) {
  const kb = await prisma.knowledgeBase.findFirst({ where: { OR: [{ id: ref }, { name: ref }] }, select: { id: true, name: true } });
  if (!kb) throw new Error(`No knowledge base "${ref}" (give its name or id; npm run kb -- list shows them).`);
  return kb;
}

async function groupIds(prisma: PrismaClient, refs: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const ref of refs) {
    const g = await prisma.group.findFirst({ where: { OR: [{ id: ref }, { name: ref }] }, select: { id: true } });
    if (!g) throw new Error(`No group "${ref}" (create it under Users → Groups first).`);
    ids.push(g.id);
  }
  return ids;
}

/** An AppError's message with the fields it names, as a person fixes them. */
function explain(e: unknown): never {
  if (e instanceof AppError && e.fields && Object.keys(e.fields).length)
    throw new Error(
      `${e.message}\n${Object.entries(e.fields)
        .map(([k, v]) => `  ${k}: ${v}`)
        .join("\n")}`,
    );
  throw e;
}

await runCli(async () => {
  let command;
  try {
    command = parseKbArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof KbUsageError) {
      console.error(e.message);
      process.exitCode = 2;
      return;
    }
    throw e;
  }
  const env = loadEnv();
  const { handle } = await openAndBootstrap(env);
  const prisma = handle.prisma;
  const deps = catalogDeps();
  const print = (json: boolean, value: unknown, text: string) => console.log(json ? JSON.stringify(value, null, 2) : text);
  try {
    switch (command.command) {
      case "register": {
        const actor = await adminActor(prisma, command.as);
        const files = command.files.map((f) => {
          try {
            return { name: path.basename(f), bytes: readFileSync(f) };
          } catch (e) {
            throw new Error(`--file ${f} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`);
          }
        });
        const result = await registerKnowledgeBase(
          prisma,
          deps,
          actor.id,
          Object.assign({}, command.input, { groupIds: await groupIds(prisma, command.groups) }),
          files,
        ).catch(explain);
        print(
          command.json,
          result,
          [
            `Registered "${command.input.name}" (${result.id}): ${result.refresh.status.toLowerCase()}. ${result.refresh.message}`,
            ...result.warnings.map((w) => `  warning: ${w}`),
            "Vectors for its content are computed by the running server's job processor (npm start).",
          ].join("\n"),
        );
        break;
      }
      case "list": {
        const actor = await adminActor(prisma, null);
        const kbs = await listKnowledgeBases(prisma, { id: actor.id, role: actor.role, groupIds: actor.memberships.map((m) => m.groupId) });
        print(
          command.json,
          kbs,
          kbs.length === 0
            ? "No knowledge bases."
            : kbs
                .map(
                  (k) =>
                    `${k.name}\t${k.id}\t${k.kind}\t${k.status}\t${k.sourceObjectCount} source objects\t${k.groups.length ? k.groups.map((g) => g.name).join(", ") : "no group"}`,
                )
                .join("\n"),
        );
        break;
      }
      case "refresh": {
        const kb = await kbByRef(prisma, command.kb);
        const report = await refreshKnowledgeBase(prisma, deps, kb.id, command.parts).catch(explain);
        print(command.json, report, `${kb.name}: ${report.status.toLowerCase()}. ${report.message}`);
        if (report.status !== "HEALTHY") process.exitCode = 1;
        break;
      }
      case "delete": {
        const kb = await kbByRef(prisma, command.kb);
        await deleteKnowledgeBase(prisma, deps, kb.id);
        console.log(`Deleted "${kb.name}" and its files.`);
        break;
      }
    }
  } finally {
    await closeAllBackends();
    await handle.close();
  }
});
