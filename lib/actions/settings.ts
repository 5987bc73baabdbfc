"use server";

import { z } from "zod";
import { authActionClient } from "@/lib/actions/safe-action";
import { auditedChange } from "@/lib/audit/change";
import { AUDIT_RETENTION_SETTING_KEY, auditRetentionDays, saveAuditRetention } from "@/lib/audit/retention";
import { auditRetentionInputSchema } from "@/lib/audit/retention.validation";
import { settingSnapshot } from "@/lib/audit/snapshots";
import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { loadEnv } from "@/lib/env";
import { modelsEnv } from "@/lib/models/runtime";
import { CAUTION_SETTING_KEY } from "@/lib/pipeline/calibration/caution";
import { getCautionView, saveCautionSettings } from "@/lib/settings/caution";
import { cautionInputSchema } from "@/lib/settings/caution.validation";
import { FAIR_USE_SETTING_KEY, getFairUseView, saveFairUseSettings } from "@/lib/settings/fair-use";
import { fairUseInputSchema } from "@/lib/settings/fair-use.validation";
import { getLlmSettingsView, keyForTest, saveLlmSettings } from "@/lib/settings/llm-settings";
import { llmSettingsInputSchema, testConnectionInputSchema } from "@/lib/settings/llm-settings.validation";
import { applyModelSettings } from "@/lib/settings/model-settings";
import { modelSettingsInputSchema } from "@/lib/settings/model-settings.validation";
import { getModelsView } from "@/lib/settings/models-view";
import { LLM_SETTING_KEY } from "@/lib/llm/settings";
import { MODEL_SETTING_KEY } from "@/lib/models/settings";
import { testLlmConnection } from "@/lib/settings/test-connection";

const ADMIN = ["ADMIN"] as "ADMIN"[];

export const getLlmSettingsAction = authActionClient
  .metadata({ name: "settings.llm.get", roles: ADMIN })
  .inputSchema(z.object({}))
  .action(async () => getLlmSettingsView(await db(), catalogDeps().encryptionKey, loadEnv()));

export const saveLlmSettingsAction = authActionClient
  .metadata({ name: "settings.llm.save", roles: ADMIN })
  .inputSchema(llmSettingsInputSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    const { encryptionKey } = catalogDeps();
    await auditedChange(prisma, ctx.actor, settingChange("settings.llm.save", LLM_SETTING_KEY), () =>
      saveLlmSettings(prisma, encryptionKey, parsedInput),
    );
    return getLlmSettingsView(prisma, encryptionKey, loadEnv());
  });

/** Tests what the form holds (unsaved values included); a blank key field means the stored key. */
export const testLlmConnectionAction = authActionClient
  .metadata({ name: "settings.llm.test", roles: ADMIN })
  .inputSchema(testConnectionInputSchema)
  .action(async ({ parsedInput }) => {
    const env = loadEnv();
    const view = await getLlmSettingsView(await db(), catalogDeps().encryptionKey, env);
    const apiKey = await keyForTest(await db(), catalogDeps().encryptionKey, env, parsedInput.apiKey);
    return testLlmConnection({
      baseUrl: parsedInput.baseUrl || view.defaults.baseUrl,
      model: parsedInput.model || view.defaults.model,
      apiKey,
    });
  });

export const saveModelSettingsAction = authActionClient
  .metadata({ name: "settings.models.save", roles: ADMIN })
  .inputSchema(modelSettingsInputSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    const { queued } = await auditedChange(prisma, ctx.actor, settingChange("settings.models.save", MODEL_SETTING_KEY), () =>
      applyModelSettings(prisma, modelsEnv(), parsedInput),
    );
    return { view: await getModelsView(prisma, modelsEnv()), queued };
  });

export const getModelsViewAction = authActionClient
  .metadata({ name: "settings.models.get", roles: ADMIN })
  .inputSchema(z.object({}))
  .action(async () => getModelsView(await db(), modelsEnv()));

/** Fair use: questions one person may have running at once (null = RUNS_MAX_CONCURRENT). */
export const saveFairUseAction = authActionClient
  .metadata({ name: "settings.fairUse.save", roles: ADMIN })
  .inputSchema(fairUseInputSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    await auditedChange(prisma, ctx.actor, settingChange("settings.fairUse.save", FAIR_USE_SETTING_KEY), () =>
      saveFairUseSettings(prisma, parsedInput),
    );
    return getFairUseView(prisma, loadEnv());
  });

/** Caution (issue 32): show an answer only when it is at least N % likely right (null = the default chosen on dev). */
export const saveCautionAction = authActionClient
  .metadata({ name: "settings.caution.save", roles: ADMIN })
  .inputSchema(cautionInputSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    await auditedChange(prisma, ctx.actor, settingChange("settings.caution.save", CAUTION_SETTING_KEY), () =>
      saveCautionSettings(prisma, parsedInput),
    );
    return getCautionView(prisma);
  });

/** Audit log retention in days (the daily purge job deletes older records). */
export const saveAuditRetentionAction = authActionClient
  .metadata({ name: "settings.auditRetention.save", roles: ADMIN })
  .inputSchema(auditRetentionInputSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    await auditedChange(prisma, ctx.actor, settingChange("settings.auditRetention.save", AUDIT_RETENTION_SETTING_KEY), () =>
      saveAuditRetention(prisma, parsedInput),
    );
    return { days: await auditRetentionDays(prisma) };
  });

function settingChange(action: string, key: string) {
  return { action, targetType: "setting", targetId: key, snapshot: settingSnapshot };
}
