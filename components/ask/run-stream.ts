import type { ClientError } from "@/lib/errors";
import type { RunStatusName } from "@/lib/runs/types";
import type { ProgressEvent } from "./progress";

/** One line of POST /api/runs: a trace event, then the result or an error. */
export type StreamedEvent = ProgressEvent & { runId: string; seq: number; at: string };
export interface StreamedResult {
  runId: string;
  conversationId: string;
  status: RunStatusName;
  answer: string | null;
  refrained: boolean;
  reason: string | null;
}

export class RunStreamError extends Error {
  constructor(
    message: string,
    public readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface AskRequest {
  question: string;
  conversationId: string | null;
  kbIds: string[];
}

/**
 * Asks a question and reads the NDJSON answer stream as it arrives (fetch + ReadableStream, no polling):
 * every trace event goes to `onEvent`; resolves with the result line. Aborting `signal` closes the
 * request, which cancels the run on the server.
 */
export async function streamRun(
  req: AskRequest,
  { signal, onEvent }: { signal: AbortSignal; onEvent: (e: StreamedEvent) => void },
): Promise<StreamedResult> {
  const res = await fetch("/api/runs", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/x-ndjson" },
    body: JSON.stringify({ question: req.question, conversationId: req.conversationId, kbIds: req.kbIds.length ? req.kbIds : undefined }),
    signal,
  });
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => null)) as { error?: ClientError } | null;
    throw new RunStreamError(body?.error?.message ?? `The server answered ${res.status}. Try again in a moment.`, body?.error?.fields);
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  let result: StreamedResult | null = null;
  const handle = (line: string) => {
    if (!line.trim()) return;
    const msg = JSON.parse(line) as { event?: StreamedEvent; result?: StreamedResult; error?: ClientError };
    if (msg.event) onEvent(msg.event);
    else if (msg.result) result = msg.result;
    else if (msg.error) throw new RunStreamError(msg.error.message, msg.error.fields);
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      handle(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
    }
  }
  handle(buffered + decoder.decode());
  if (!result) throw new RunStreamError("The connection closed before the answer arrived. If the run finished, it is in your History.");
  return result;
}
