import type { Metadata } from "next";
import { AuditRetentionForm } from "@/components/settings/audit-retention-form";
import { CautionForm } from "@/components/settings/caution-form";
import { FairUseForm } from "@/components/settings/fair-use-form";
import { auditRetentionDays } from "@/lib/audit/retention";
import { LlmSettingsForm } from "@/components/settings/llm-settings-form";
import { ModelSettings } from "@/components/settings/model-settings";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { loadEnv } from "@/lib/env";
import { rolesFor } from "@/lib/navigation";
import { modelsEnv } from "@/lib/models/runtime";
import { getCautionView } from "@/lib/settings/caution";
import { getFairUseView } from "@/lib/settings/fair-use";
import { getLlmSettingsView } from "@/lib/settings/llm-settings";
import { getModelsView } from "@/lib/settings/models-view";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  await requireRole(rolesFor("/settings"), "/settings");
  const prisma = await db();
  const [view, models, fairUse, caution, retentionDays] = await Promise.all([
    getLlmSettingsView(prisma, catalogDeps().encryptionKey, loadEnv()),
    getModelsView(prisma, modelsEnv()),
    getFairUseView(prisma, loadEnv()),
    getCautionView(prisma),
    auditRetentionDays(prisma),
  ]);
  return (
    <>
      <PageHeader
        title="Settings"
        description="The LLM endpoint Mosaic's stages may use (any OpenAI-compatible server: OpenAI, vLLM, Ollama, llama.cpp), the model per stage, and which stages use it; the local models that rank evidence by meaning, and how many questions one person may have running at once, and how likely an answer must be right before it is shown. Every stage keeps its classical strategy as the fallback."
      />
      <div className="space-y-10">
        <LlmSettingsForm initial={view} />
        <ModelSettings initial={models} />
        <FairUseForm initial={fairUse} />
        <CautionForm initial={caution} />
        <AuditRetentionForm initialDays={retentionDays} />
      </div>
    </>
  );
}
