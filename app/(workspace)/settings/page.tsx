import type { Metadata } from "next";
import { LlmSettingsForm } from "@/components/settings/llm-settings-form";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { catalogDeps } from "@/lib/catalog/deps";
import { db } from "@/lib/db/client";
import { loadEnv } from "@/lib/env";
import { rolesFor } from "@/lib/navigation";
import { getLlmSettingsView } from "@/lib/settings/llm-settings";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  await requireRole(rolesFor("/settings"), "/settings");
  const view = await getLlmSettingsView(await db(), catalogDeps().encryptionKey, loadEnv());
  return (
    <>
      <PageHeader
        title="Settings"
        description="The LLM endpoint Mosaic's stages may use (any OpenAI-compatible server: OpenAI, vLLM, Ollama, llama.cpp), the model per stage, and which stages use it. Every stage keeps its classical strategy as the fallback."
      />
      <LlmSettingsForm initial={view} />
    </>
  );
}
