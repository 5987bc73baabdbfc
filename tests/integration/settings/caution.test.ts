import { describe, expect, it, vi } from "vitest";
import type { CurrentUser } from "@/lib/auth/session";
import { flushAudit } from "@/lib/audit/audit";
import type { PrismaClient } from "@/lib/db/generated/client";
import { CAUTION_SETTING_KEY, cautionTarget, defaultCaution } from "@/lib/pipeline/calibration/caution";
import { getCautionView } from "@/lib/settings/caution";
import { useDemoWorkspace } from "../support/demo-workspace";
import { TARGET_ENGINE } from "../support/test-database";

// Two seams only: who is signed in, and which database the action opens (the test's own, real engine).
let current: CurrentUser | null = null;
let testPrisma: PrismaClient | null = null;
vi.mock("@/lib/auth/session", () => ({ getCurrentUser: async () => current }));
vi.mock("@/lib/db/client", () => ({ db: async () => testPrisma! }));

const { saveCautionAction } = await import("@/lib/actions/settings");

describe(`caution setting (${TARGET_ENGINE})`, () => {
  const ws = useDemoWorkspace("mosaic-caution-");
  const prisma = () => ws.handle.prisma;
  const signIn = async (email: string) => {
    testPrisma = prisma();
    const u = await prisma().user.findUniqueOrThrow({ where: { email }, include: { memberships: true } });
    current = { id: u.id, email: u.email, name: u.name, role: u.role, groupIds: u.memberships.map((m) => m.groupId) };
  };

  it("starts at the default chosen on dev", async () => {
    const view = await getCautionView(prisma());
    expect(view).toMatchObject({ override: null, targetPercent: defaultCaution().percent });
    // The default was chosen on answers from databases: document answers are calibrated now, but not held back by a target no one chose on them.
    expect(view.heldKinds).toEqual(["databases (SQL)"]);
    expect(view.otherKinds).toEqual(["documents", "graphs (SPARQL, Cypher)"]);
  });

  it("is saved by an admin, audited with before and after, and applies to the next run", async () => {
    await signIn("admin@mosaic.local");
    const saved = await saveCautionAction({ targetPercent: 80 });
    expect(saved?.serverError).toBeUndefined();
    expect(saved?.data).toMatchObject({ targetPercent: 80, override: 80 });
    expect(await cautionTarget(prisma())).toBe(0.8);
    await flushAudit();
    const row = await prisma().auditEvent.findFirstOrThrow({ where: { action: "settings.caution.save" }, orderBy: { at: "desc" } });
    expect(row).toMatchObject({
      outcome: "success",
      targetType: "setting",
      targetId: CAUTION_SETTING_KEY,
      actorEmail: "admin@mosaic.local",
    });
    expect(row.after).toEqual({ value: { targetPercent: 80 }, secret: "none" });
  });

  it("refuses an analyst (and a value out of range), changing nothing", async () => {
    await signIn("analyst@mosaic.local");
    expect((await saveCautionAction({ targetPercent: 60 }))?.serverError).toMatchObject({ code: "FORBIDDEN" });
    await signIn("admin@mosaic.local");
    const bad = await saveCautionAction({ targetPercent: 40 });
    expect(bad?.validationErrors).toBeDefined();
    expect(bad?.data).toBeUndefined();
    expect((await getCautionView(prisma())).targetPercent).toBe(80);
  });

  it("a run below the target shows what it found as not certain, with why; History keeps the same status", async () => {
    await signIn("admin@mosaic.local");
    await saveCautionAction({ targetPercent: 99 });
    const outcome = await ws.ask("Which customers are located in Munich?");
    expect(outcome.caution).toMatchObject({ target: 0.99, applies: true, held: true });
    expect(outcome.status).toBe("ANSWERED");
    expect(outcome.answer.refrained).toBe(false);
    expect(outcome.answer.certainty).toBe("uncertain");
    expect(outcome.answer.text.length).toBeGreaterThan(0);
    expect(outcome.evidence.length).toBeGreaterThan(0);
    expect(outcome.answer.reason).toMatch(
      /^Not certain — the closest answer found is '.+', about \d+ % likely right; this workspace shows an answer only at 99 % or more\./,
    );
    const stored = await prisma().run.findUniqueOrThrow({ where: { id: outcome.runId } });
    expect(stored.certainty).toBe("uncertain");

    // At the lowest target the same question is shown as an answer when its confidence reaches it.
    await saveCautionAction({ targetPercent: 50 });
    const again = await ws.ask("Which customers are located in Munich?");
    expect(again.caution?.target).toBe(0.5);
    expect(again.caution?.held).toBe(again.answer.confidence < 0.5);
  }, 120_000);
});
