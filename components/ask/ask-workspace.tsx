"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { getRunAction } from "@/lib/actions/ask";
import { unwrap } from "@/lib/actions/unwrap";
import type { AskableKb, RunView, TurnView } from "@/lib/runs/types";
import { KindBadge } from "../kb/status-badge";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { PageHeader } from "../ui/page-header";
import { Composer } from "./composer";
import { type LiveRun, LiveRunPanel } from "./live-run";
import { applyEvent, emptyProgress } from "./progress";
import { RunResult } from "./run-result";
import { RunStreamError, streamRun } from "./run-stream";
import { Thread } from "./thread";
import { turnOutcome } from "@/lib/runs/turn-outcome";

function toTurn(v: RunView): TurnView {
  return {
    id: v.id,
    question: v.question,
    status: v.status,
    outcome: turnOutcome({ status: v.status, refrained: v.outcome?.answer.refrained ?? false, certainty: v.outcome?.answer.certainty }),
    answer: v.outcome && !v.outcome.answer.refrained ? v.outcome.answer.text : null,
    shape: v.outcome && !v.outcome.answer.refrained ? (v.outcome.answer.shape ?? null) : null,
    refrainReason: v.outcome?.answer.reason ?? null,
    confidence: v.outcome?.answer.confidence ?? null,
    createdAt: v.createdAt,
    conversationId: v.conversationId,
  };
}

function setUrl(path: string) {
  // Keeps the address reopenable (reload, share, back) without a navigation that would reset this screen.
  window.history.replaceState(null, "", path);
}

export interface AskWorkspaceProps {
  kbs: AskableKb[];
  initialRun: RunView | null;
  initialTurns: TurnView[];
  initialConversationId: string | null;
  canSaveGuide: boolean;
  openError: string | null;
}

/** The Ask screen: conversation thread, question box, the live run and the finished result. */
export function AskWorkspace({ kbs, initialRun, initialTurns, initialConversationId, canSaveGuide, openError }: AskWorkspaceProps) {
  // Ids, scores, linked names, the refinement path and the trace sit behind "Details": open by default for
  // analysts and admins, who review runs; a business user sees the answer, its citations and evidence in words.
  const [details, setDetails] = useState(canSaveGuide);
  const [conversationId, setConversationId] = useState(initialConversationId);
  const [turns, setTurns] = useState(initialTurns);
  const [currentRunId, setCurrentRunId] = useState<string | null>(initialRun?.id ?? null);
  const [live, setLive] = useState<LiveRun | null>(null);
  const [question, setQuestion] = useState("");
  const [kbIds, setKbIds] = useState<string[]>([]);
  const [composerError, setComposerError] = useState<string | null>(null);
  const [notice, setNotice] = useState(openError);
  const abortRef = useRef<AbortController | null>(null);
  const running = live?.phase === "running";

  useEffect(() => () => abortRef.current?.abort(), []);

  const run = useQuery({
    queryKey: ["run", currentRunId],
    queryFn: () => unwrap(getRunAction({ id: currentRunId! })),
    enabled: currentRunId !== null,
    initialData: currentRunId !== null && currentRunId === initialRun?.id ? initialRun : undefined,
    // A stored run only changes through this screen (feedback keeps its own state), so no refetching;
    // gcTime 0 drops it once off screen, so reopening always starts from the server's copy.
    staleTime: Infinity,
    gcTime: 0,
  });

  async function ask() {
    const q = question.trim();
    if (!q || running) return;
    const current = run.data;
    const continuing = conversationId !== null;
    if (current && continuing && current.conversationId === conversationId) setTurns((t) => [...t, toTurn(current)]);
    if (!continuing) setTurns([]);
    const controller = new AbortController();
    abortRef.current = controller;
    setLive({ question: q, progress: emptyProgress(), phase: "running", startedAt: Date.now(), error: null });
    setCurrentRunId(null);
    setQuestion("");
    setComposerError(null);
    setNotice(null);
    try {
      const result = await streamRun(
        { question: q, conversationId, kbIds },
        { signal: controller.signal, onEvent: (e) => setLive((l) => (l ? { ...l, progress: applyEvent(l.progress, e) } : l)) },
      );
      setConversationId(result.conversationId);
      setCurrentRunId(result.runId);
      setLive((l) => (l ? { ...l, phase: "finished" } : l));
      setUrl(`/ask?run=${encodeURIComponent(result.runId)}`);
    } catch (e) {
      setQuestion((cur) => cur || q);
      if (controller.signal.aborted) {
        setLive((l) => (l ? { ...l, phase: "cancelled" } : l));
      } else {
        const message = e instanceof RunStreamError ? e.message : "Could not reach the server. Check your connection and try again.";
        if (e instanceof RunStreamError && e.fields.question) setComposerError(e.fields.question);
        setLive((l) => (l ? { ...l, phase: "failed", error: message } : l));
      }
    } finally {
      if (abortRef.current === controller) abortRef.current = null;
    }
  }

  function newConversation() {
    abortRef.current?.abort();
    setConversationId(null);
    setTurns([]);
    setCurrentRunId(null);
    setLive(null);
    setQuestion("");
    setComposerError(null);
    setNotice(null);
    setUrl("/ask");
    document.getElementById("question")?.focus();
  }

  const hasContext = conversationId !== null || turns.length > 0 || currentRunId !== null || live !== null;
  const showLive = live && (live.phase !== "finished" || !run.data);

  return (
    <div className="space-y-6">
      <PageHeader
        title="Ask"
        description="Ask in plain language. Mosaic answers from the knowledge bases you may use and shows the evidence behind every answer."
        actions={
          <Button variant="secondary" onClick={newConversation} disabled={!hasContext || running}>
            New conversation
          </Button>
        }
      />
      {notice && (
        <Alert tone="error">
          {notice}{" "}
          <Link href="/history" className="font-medium underline">
            Open your History
          </Link>{" "}
          to find your own runs.
        </Alert>
      )}
      <Thread turns={turns} />
      <Composer
        value={question}
        onChange={setQuestion}
        onSubmit={ask}
        onCancel={() => abortRef.current?.abort()}
        running={running}
        kbs={kbs}
        selectedKbIds={kbIds}
        onKbsChange={setKbIds}
        followUp={conversationId !== null}
        error={composerError}
      />
      {showLive ? (
        <LiveRunPanel live={live} />
      ) : run.data ? (
        <RunResult key={run.data.id} view={run.data} canSaveGuide={canSaveGuide} details={details} onDetails={setDetails} />
      ) : run.error ? (
        <Alert tone="error">
          {run.error.message}{" "}
          <button type="button" className="font-medium underline" onClick={() => run.refetch()}>
            Try again
          </button>
        </Alert>
      ) : currentRunId ? (
        <p className="text-sm text-slate-500">Loading the run…</p>
      ) : (
        <EmptyState kbs={kbs} />
      )}
    </div>
  );
}

function EmptyState({ kbs }: { kbs: AskableKb[] }) {
  if (!kbs.length) {
    return (
      <div className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-700" data-testid="ask-empty">
        No knowledge base is shared with you yet, so there is nothing to ask. Ask an admin to give your group access to one.
      </div>
    );
  }
  return (
    <section
      aria-labelledby="sources-heading"
      className="rounded-lg border border-dashed border-slate-300 bg-white p-6"
      data-testid="ask-empty"
    >
      <h2 id="sources-heading" className="text-sm font-semibold">
        What you can ask about
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Type a question above. These knowledge bases are open to you; Mosaic picks the right ones for each question.
      </p>
      <ul className="mt-4 grid gap-3 md:grid-cols-2 xl:grid-cols-3">
        {kbs.map((k) => (
          <li key={k.id} className="rounded-md border border-slate-200 p-3">
            <p className="flex flex-wrap items-center gap-2 text-sm font-medium">
              {k.name} <KindBadge kind={k.kind} />
            </p>
            <p className="mt-1 line-clamp-3 text-xs text-slate-600">{k.description || "No description yet."}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
