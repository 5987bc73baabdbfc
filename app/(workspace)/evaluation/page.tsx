import type { Metadata } from "next";
import { availableParallelism } from "node:os";
import { Suspense } from "react";
import { EvaluationDashboard } from "@/components/evaluation/evaluation-dashboard";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { loadEnv } from "@/lib/env";
import { MAX_APP_CONCURRENCY } from "@/lib/eval/eval.validation";
import { listReports, listSuiteOptions, suiteSettings } from "@/lib/eval/reports";
import { rolesFor } from "@/lib/navigation";

export const metadata: Metadata = { title: "Evaluation" };

export default async function EvaluationPage() {
  const user = await requireRole(rolesFor("/evaluation"), "/evaluation");
  const prisma = await db();
  const [reports, suites] = await Promise.all([
    listReports(prisma, user),
    listSuiteOptions(prisma, user, suiteSettings(loadEnv(), catalogDeps())),
  ]);
  return (
    <>
      <PageHeader
        title="Evaluation"
        description="Run benchmark and authored suites through the pipeline, follow their progress, read source selection, retrieval, execution, answer presence and answer accuracy, drill into wrong answers and compare two runs."
      />
      <Suspense>
        <EvaluationDashboard
          initialReports={reports}
          suites={suites}
          maxConcurrency={Math.min(MAX_APP_CONCURRENCY, Math.max(2, availableParallelism()))}
          canLoadCatalog={user.role === "ADMIN"}
        />
      </Suspense>
    </>
  );
}
