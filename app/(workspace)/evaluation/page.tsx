import type { Metadata } from "next";
import { ComingSoon } from "@/components/ui/coming-soon";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { rolesFor } from "@/lib/navigation";

export const metadata: Metadata = { title: "Evaluation" };

export default async function EvaluationPage() {
  await requireRole(rolesFor("/evaluation"), "/evaluation");
  return (
    <>
      <PageHeader title="Evaluation" description="Benchmark suites and the metrics of retrieval and answering." />
      <ComingSoon>
        <p>Run a suite from the browser, follow its progress, read the metrics per suite, source kind and stage, drill into failed questions and compare two reports.</p>
      </ComingSoon>
    </>
  );
}
