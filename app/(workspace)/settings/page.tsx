import type { Metadata } from "next";
import { ComingSoon } from "@/components/ui/coming-soon";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { rolesFor } from "@/lib/navigation";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  await requireRole(rolesFor("/settings"), "/settings");
  return (
    <>
      <PageHeader title="Settings" description="Workspace-wide settings: the LLM endpoint and models, per-stage strategies." />
      <ComingSoon>
        <p>Configure an OpenAI-compatible endpoint, model names and per-stage switches, and test the connection. Secrets are encrypted at rest.</p>
      </ComingSoon>
    </>
  );
}
