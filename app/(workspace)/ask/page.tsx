import type { Metadata } from "next";
import { ComingSoon } from "@/components/ui/coming-soon";
import { PageHeader } from "@/components/ui/page-header";
import { requireRole } from "@/lib/auth/session";
import { rolesFor } from "@/lib/navigation";

export const metadata: Metadata = { title: "Ask" };

export default async function AskPage() {
  await requireRole(rolesFor("/ask"), "/ask");
  return (
    <>
      <PageHeader title="Ask" description="Ask a question in plain language; Mosaic answers from the knowledge bases you may use and shows the evidence." />
      <ComingSoon>
        <p>A question box with conversation context and an optional choice of knowledge bases.</p>
        <p>Live progress of each pipeline stage, the answer with citations, and evidence panels for passages, table rows, triples and graph paths.</p>
        <p>Until the answering pipeline lands, no question can be asked here.</p>
      </ComingSoon>
    </>
  );
}
