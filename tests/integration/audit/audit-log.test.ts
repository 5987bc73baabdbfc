import { describe, expect, it, vi } from "vitest";
import { type AuditActor, flushAudit, recordAudit } from "@/lib/audit/audit";
import { auditedChange } from "@/lib/audit/change";
import { allAuditEvents, listAuditEvents } from "@/lib/audit/query";
import { purgeAuditEvents, saveAuditRetention } from "@/lib/audit/retention";
import { auditAsk, auditEvidenceOpened } from "@/lib/audit/runs";
import { kbSnapshot, settingSnapshot, userSnapshot } from "@/lib/audit/snapshots";
import { updateKnowledgeBase } from "@/lib/catalog/knowledge-bases";
import type { PrismaClient } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { FAIR_USE_SETTING_KEY, saveFairUseSettings } from "@/lib/settings/fair-use";
import { createGroup, updateUser } from "@/lib/users/users";
import { useDemoWorkspace } from "../support/demo-workspace";
import { TARGET_ENGINE } from "../support/test-database";

/**
 * The audit log on the real application database. The changes are composed exactly as their server
 * actions compose them (app/(workspace)/*\/actions.ts: auditedChange around the domain function), with
 * the actor the action middleware builds; questions go through the real pipeline.
 */
describe(`audit log (${TARGET_ENGINE})`, () => {
  const ws = useDemoWorkspace("mosaic-audit-");
  const prisma = () => ws.handle.prisma;
  const adminActor = async (): Promise<AuditActor> => {
    const a = await prisma().user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } });
    return { actorId: a.id, actorEmail: a.email, address: "203.0.113.7" };
  };
  const latest = async (action: string) => {
    await flushAudit();
    const { rows } = await listAuditEvents(prisma(), { action }, 1);
    return rows[0];
  };

  it("records a user's role and group change with the admin as actor, the address, and before and after", async () => {
    const actor = await adminActor();
    const finance = await createGroup(prisma(), { name: "Finance" });
    const bo = await prisma().user.findUniqueOrThrow({ where: { email: "user@mosaic.local" }, include: { memberships: true } });
    await auditedChange(prisma(), actor, { action: "users.update", targetType: "user", targetId: bo.id, snapshot: userSnapshot }, () =>
      updateUser(prisma(), { id: bo.id, role: "ANALYST", active: true, groupIds: [...bo.memberships.map((m) => m.groupId), finance.id] }),
    );
    const row = await latest("users.update");
    expect(row).toMatchObject({
      actorId: actor.actorId,
      actorEmail: "admin@mosaic.local",
      address: "203.0.113.7",
      outcome: "success",
      targetType: "user",
      targetId: bo.id,
      before: { role: "USER", groups: ["Everyone"], email: "user@mosaic.local" },
      after: { role: "ANALYST", groups: ["Everyone", "Finance"] },
    });
    // Put Bo back for the other tests.
    await updateUser(prisma(), { id: bo.id, role: "USER", active: true, groupIds: bo.memberships.map((m) => m.groupId) });
  });

  it("records a refused change as a failure with the typed message, and the action's error reaches the caller unchanged", async () => {
    const actor = await adminActor();
    const err = await auditedChange(
      prisma(),
      actor,
      { action: "users.update", targetType: "user", targetId: actor.actorId, snapshot: userSnapshot },
      () =>
        // The last admin cannot demote themselves.
        updateUser(prisma(), { id: actor.actorId!, role: "USER", active: true, groupIds: [] }),
    ).catch((e: unknown) => e);
    expect(AppError.is(err) && err.code).toBe("CONFLICT");
    const row = await latest("users.update");
    expect(row.outcome).toBe("failure");
    expect(row.detail).toMatchObject({ error: expect.stringContaining("last active admin") });
    expect(row.before).toMatchObject({ role: "ADMIN" });
    expect(row.after).toBeNull();
  });

  it("records a knowledge base's access change (groups before and after) under that knowledge base", async () => {
    const actor = await adminActor();
    const kb = await prisma().knowledgeBase.findFirstOrThrow({ where: { origin: "demo", kind: "SQL" } });
    const analysts = await prisma().group.findUniqueOrThrow({ where: { name: "Analysts" } });
    await auditedChange(
      prisma(),
      actor,
      { action: "kb.update", targetType: "kb", targetId: kb.id, kbIds: [kb.id], snapshot: kbSnapshot },
      () => updateKnowledgeBase(prisma(), { id: kb.id, name: kb.name, description: kb.description, groupIds: [analysts.id] }),
    );
    const row = await latest("kb.update");
    expect(row.kbIds).toEqual([kb.id]);
    expect((row.before as { groups: string[] }).groups).not.toContain("Analysts");
    expect((row.after as { groups: string[]; secrets: string }).groups).toEqual(["Analysts"]);
    expect(JSON.stringify(row)).not.toMatch(/ciphertext/i);
    const filtered = await listAuditEvents(prisma(), { kbId: kb.id });
    expect(filtered.rows.map((r) => r.action)).toContain("kb.update");
    await updateKnowledgeBase(prisma(), { id: kb.id, name: kb.name, description: kb.description, groupIds: [] });
  });

  it("records a settings change with its value before and after", async () => {
    const actor = await adminActor();
    const change = { action: "settings.fairUse.save", targetType: "setting", targetId: FAIR_USE_SETTING_KEY, snapshot: settingSnapshot };
    await auditedChange(prisma(), actor, change, () => saveFairUseSettings(prisma(), { maxConcurrentRuns: 4 }));
    await auditedChange(prisma(), actor, change, () => saveFairUseSettings(prisma(), { maxConcurrentRuns: 9 }));
    const row = await latest("settings.fairUse.save");
    expect(row.before).toEqual({ value: { maxConcurrentRuns: 4 }, secret: "none" });
    expect(row.after).toEqual({ value: { maxConcurrentRuns: 9 }, secret: "none" });
  });

  it("records a question with who asked, the knowledge bases its queries touched and the run; and the evidence opened", async () => {
    const outcome = await ws.ask("How many orders were returned?");
    const bo: AuditActor = { actorId: ws.user.id, actorEmail: "user@mosaic.local", address: "198.51.100.2" };
    auditAsk(bo, "How many orders were returned?", outcome, prisma());
    const row = await latest("ask");
    const queried = [...new Set(outcome.queries.map((q) => q.kbId))];
    expect(queried.length).toBeGreaterThan(0);
    expect(row).toMatchObject({
      actorId: ws.user.id,
      runId: outcome.runId,
      address: "198.51.100.2",
      detail: { question: "How many orders were returned?" },
    });
    expect(row.kbIds.sort()).toEqual(queried.sort());

    auditEvidenceOpened(bo, outcome.runId, prisma());
    await new Promise((r) => setTimeout(r, 200)); // the run is read before the record is queued
    const opened = await latest("evidence.open");
    expect(opened).toMatchObject({ actorId: ws.user.id, runId: outcome.runId, detail: { ownRun: true } });
    expect(opened.kbIds.sort()).toEqual(queried.sort());
  });

  it("a failing audit write fails neither the change nor the question; the failure is logged", async () => {
    const actor = await adminActor();
    const errors = vi.spyOn(log, "error").mockImplementation(() => undefined);
    // The same database, except that the audit table refuses every write.
    const broken = new Proxy(prisma(), {
      get(target, prop, receiver) {
        if (prop === "auditEvent") return { create: () => Promise.reject(new Error("audit table unavailable")) };
        return Reflect.get(target, prop, receiver) as unknown;
      },
    }) as PrismaClient;
    const before = await prisma().auditEvent.count();
    const result = await auditedChange(broken, actor, { action: "groups.create", targetType: "group" }, () =>
      createGroup(broken, { name: "Legal" }),
    );
    expect(result.name).toBe("Legal");
    const outcome = await ws.ask("How many orders were returned?");
    auditAsk(actor, "How many orders were returned?", outcome, broken);
    await flushAudit();
    expect(outcome.status).not.toBe("FAILED");
    expect(errors).toHaveBeenCalledWith(
      expect.objectContaining({ audit: expect.objectContaining({ action: "groups.create" }) }),
      "could not write an audit record",
    );
    expect(await prisma().group.count({ where: { name: "Legal" } })).toBe(1);
    expect(errors).toHaveBeenCalledWith(
      expect.objectContaining({ audit: expect.objectContaining({ action: "ask" }) }),
      "could not write an audit record",
    );
    expect(await prisma().auditEvent.count()).toBe(before);
    errors.mockRestore();
  });

  it("keeps records append-only: the database ignores an update", async () => {
    await recordAudit(prisma(), { action: "test.append-only", actorEmail: "x@example.com" });
    const { count } = await prisma().auditEvent.updateMany({
      where: { action: "test.append-only" },
      data: { actorEmail: "forged@example.com" },
    });
    expect(count).toBe(0);
    const { rows } = await listAuditEvents(prisma(), { action: "test.append-only" });
    expect(rows[0].actorEmail).toBe("x@example.com");
  });

  it("purges only records past the retention, and records the purge itself", async () => {
    await saveAuditRetention(prisma(), { days: 30 });
    const now = new Date();
    await prisma().auditEvent.create({ data: { action: "test.old", at: new Date(now.getTime() - 31 * 86_400_000) } });
    await prisma().auditEvent.create({ data: { action: "test.recent", at: new Date(now.getTime() - 29 * 86_400_000) } });
    const { deleted, days } = await purgeAuditEvents(prisma(), now);
    expect(days).toBe(30);
    expect(deleted).toBe(1);
    expect(await prisma().auditEvent.count({ where: { action: "test.old" } })).toBe(0);
    expect(await prisma().auditEvent.count({ where: { action: "test.recent" } })).toBe(1);
    const purge = await latest("audit.purge");
    expect(purge).toMatchObject({ actorEmail: "system", detail: { deleted: 1, retentionDays: 30 } });
  });

  it("filters by actor, action prefix and time range, and the export walks every matching row", async () => {
    const rows: string[] = [];
    for await (const r of allAuditEvents(prisma(), { actor: "ADMIN@mosaic" }, 2)) rows.push(r.actorEmail ?? "");
    expect(rows.length).toBeGreaterThan(2);
    expect(new Set(rows)).toEqual(new Set(["admin@mosaic.local"]));
    const future = await listAuditEvents(prisma(), { from: "2999-01-01" });
    expect(future.total).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    const settings = await listAuditEvents(prisma(), { action: "settings.", from: today, to: today });
    // An action ending in "." matches every action under it.
    expect(settings.rows.map((r) => r.action)).toEqual(["settings.fairUse.save", "settings.fairUse.save"]);
  });
});
